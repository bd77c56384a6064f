// The `budget` policy: the most an organization, or one of its API keys, may spend per UTC day and
// calendar month. Both apply to a key's call (its own budget and its organization's). Spend is read
// from spend_daily, which the usage reports bump after each request, so the budget is checked before
// a request and its cost added after it: the request that crosses a budget is the last one served.
import { and, eq, gte, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { invalid } from "#core/errors.ts";
import { isUuid } from "#core/ids.ts";
import { type BudgetPolicy, storedConfig } from "#core/policies.ts";
import type { Executor } from "#db/client.ts";
import { policies, spendDaily } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { type BudgetPeriod, firstDayOfMonth, utcDayOf } from "./periods.ts";

type Ctx = Pick<AppContext, "clock"> & { db: Executor };

/** The budgets that apply to calls of one key (or of the organization's playground, without a key). */
export interface ApplicableBudgets {
  organization?: BudgetPolicy | undefined;
  api_key?: BudgetPolicy | undefined;
}

export interface BudgetStanding {
  allowed: boolean;
  /** Which budget is spent, its limit and the spend: the 429's message. */
  message?: string | undefined;
  /** Spent so far per scope and period (absent when no budget applies): seeds the gateway's counters. */
  spent?: SpentSoFar | undefined;
}

export interface SpentSoFar {
  organization: { day: number; month: number };
  api_key: { day: number; month: number };
}

export type BudgetScope = "organization" | "api_key";

/** One limit of one budget against what was spent in its period. */
export interface BudgetLine {
  scope: BudgetScope;
  period: BudgetPeriod;
  limit: number;
  spent: number;
}

const limitOf = (budget: BudgetPolicy | undefined, period: BudgetPeriod) =>
  period === "day" ? budget?.max_spend_per_day : budget?.max_spend_per_month;

export const hasLimits = (b: ApplicableBudgets | undefined): boolean =>
  b !== undefined &&
  [b.organization, b.api_key].some(
    (x) => x?.max_spend_per_day !== undefined || x?.max_spend_per_month !== undefined,
  );

/** Budget policies of the organizations `orgs` selects: each organization's own, and those of the keys `keys` selects (none: no key's). */
function budgetPolicies(orgs: SQL, keys: SQL | undefined) {
  return and(
    orgs,
    eq(policies.policyType, "budget"),
    keys ? or(isNull(policies.apiKeyId), keys) : isNull(policies.apiKeyId),
  );
}

/** The organization's budget and the key's, from one query. */
export async function applicableBudgets(
  db: Executor,
  orgId: string,
  apiKeyId: string | undefined,
): Promise<ApplicableBudgets> {
  const rows = await db
    .select({ apiKeyId: policies.apiKeyId, config: policies.config })
    .from(policies)
    .where(
      and(
        budgetPolicies(eq(policies.orgId, orgId), apiKeyId ? eq(policies.apiKeyId, apiKeyId) : undefined),
        isNull(policies.deploymentId),
      ),
    );
  const result: ApplicableBudgets = {};
  for (const row of rows) {
    const budget = storedConfig("budget", row.config);
    if (row.apiKeyId) result.api_key = budget;
    else result.organization = budget;
  }
  return result;
}

/** Spend of the organization (and of one key) today and this month. */
async function spendNow(
  db: Executor,
  orgId: string,
  apiKeyId: string | undefined,
  now: Date,
): Promise<SpentSoFar> {
  const today = utcDayOf(now);
  const [row] = await db
    .select({
      orgDay: sql<number>`coalesce(sum(${spendDaily.cost}) filter (where ${spendDaily.day} = ${today}), 0)`,
      orgMonth: sql<number>`coalesce(sum(${spendDaily.cost}), 0)`,
      keyDay: apiKeyId
        ? sql<number>`coalesce(sum(${spendDaily.cost}) filter (where ${spendDaily.day} = ${today} and ${spendDaily.apiKeyId} = ${apiKeyId}), 0)`
        : sql<number>`0`,
      keyMonth: apiKeyId
        ? sql<number>`coalesce(sum(${spendDaily.cost}) filter (where ${spendDaily.apiKeyId} = ${apiKeyId}), 0)`
        : sql<number>`0`,
    })
    .from(spendDaily)
    .where(and(eq(spendDaily.orgId, orgId), gte(spendDaily.day, firstDayOfMonth(now))));
  return {
    organization: { day: Number(row?.orgDay ?? 0), month: Number(row?.orgMonth ?? 0) },
    api_key: { day: Number(row?.keyDay ?? 0), month: Number(row?.keyMonth ?? 0) },
  };
}

/** Every limit set, against the spend of its period so far. */
export async function budgetLines(
  ctx: Ctx,
  orgId: string,
  apiKeyId: string | undefined,
  budgets?: ApplicableBudgets,
): Promise<BudgetLine[]> {
  const applicable = budgets ?? (await applicableBudgets(ctx.db, orgId, apiKeyId));
  if (!hasLimits(applicable)) return [];
  const spent = await spendNow(ctx.db, orgId, apiKeyId, ctx.clock());
  const lines: BudgetLine[] = [];
  for (const scope of ["api_key", "organization"] as const) {
    if (scope === "api_key" && !apiKeyId) continue;
    for (const period of ["day", "month"] as const) {
      const limit = limitOf(applicable[scope], period);
      if (limit !== undefined) lines.push({ scope, period, limit, spent: spent[scope][period] });
    }
  }
  return lines;
}

const scopeText = { api_key: "API key", organization: "organization" } as const;
const periodText = { day: "daily", month: "monthly" } as const;
const amount = (n: number) => String(Math.round(n * 1e6) / 1e6);

export const refusalOf = (line: BudgetLine) =>
  `the ${scopeText[line.scope]}'s ${periodText[line.period]} budget is spent: ` +
  `limit ${amount(line.limit)}, spent ${amount(line.spent)} this ${line.period} (UTC)`;

/** May one more call of this key (or of the organization, without a key) start? */
export async function checkBudget(
  ctx: Ctx,
  input: { orgId: string; apiKeyId?: string | undefined },
): Promise<BudgetStanding> {
  if (!isUuid(input.orgId)) throw invalid("org_id", "is not a UUID");
  if (input.apiKeyId !== undefined && !isUuid(input.apiKeyId)) throw invalid("api_key_id", "is not a UUID");
  const lines = await budgetLines(ctx, input.orgId, input.apiKeyId);
  if (lines.length === 0) return { allowed: true };
  const spent: SpentSoFar = {
    organization: { day: 0, month: 0 },
    api_key: { day: 0, month: 0 },
  };
  for (const line of lines) spent[line.scope][line.period] = line.spent;
  const spentLine = lines.find((l) => l.spent >= l.limit);
  return spentLine ? { allowed: false, message: refusalOf(spentLine), spent } : { allowed: true, spent };
}

/** The keys of the organization that have a budget of their own, among `keyIds`. */
export async function keysWithBudgets(db: Executor, orgIds: string[], keyIds: string[]) {
  if (orgIds.length === 0) return [];
  return db
    .select({ orgId: policies.orgId, apiKeyId: policies.apiKeyId })
    .from(policies)
    .where(
      budgetPolicies(
        inArray(policies.orgId, orgIds),
        keyIds.length > 0 ? inArray(policies.apiKeyId, keyIds) : undefined,
      ),
    );
}
