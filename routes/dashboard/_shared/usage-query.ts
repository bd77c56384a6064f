import { t } from "elysia";
import { usageRangeNames } from "#services/usage/overview.ts";

/** `?range=hour|day|week|month` of the usage pages (default: day). */
export const RangeQuery = t.Object({
  range: t.Optional(t.Union(usageRangeNames.map((r) => t.Literal(r)))),
});
