// The UTC periods spend is counted in: days (YYYY-MM-DD, as usage_counters) and calendar months.
export type BudgetPeriod = "day" | "month";

export const utcDayOf = (at: Date) => at.toISOString().slice(0, 10);
export const utcMonthOf = (at: Date) => at.toISOString().slice(0, 7);
export const firstDayOfMonth = (at: Date) => `${utcMonthOf(at)}-01`;
