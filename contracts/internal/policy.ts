// /internal/policy/*: the quota and budget checks and the usage count an inference gateway apart asks the
// filtration gateway for. Written once here: the routes (routes/filtration/internal/policy/) validate
// and document with these schemas; the client (server/filtration-http-port.ts) checks the answers.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Uuid } from "./common.ts";

export const QuotaCheck = T.Object({
  org_id: Uuid,
  deployment_id: T.Optional(Uuid),
  tokens: T.Optional(T.Integer({ minimum: 0 })),
});

export const QuotaAnswer = T.Object({
  allowed: T.Boolean(),
  remaining_requests: T.Optional(T.Integer()),
  remaining_tokens: T.Optional(T.Integer()),
  used_requests: T.Integer({ description: "Requests counted today so far" }),
  used_tokens: T.Integer({ description: "Tokens counted today so far" }),
  reset_at: T.String({ format: "date-time" }),
});
export type QuotaAnswer = Static<typeof QuotaAnswer>;

export const BudgetCheck = T.Object({ org_id: Uuid, api_key_id: T.Optional(Uuid) });

const SpentInPeriods = T.Object({ day: T.Number(), month: T.Number() });

export const BudgetAnswer = T.Object({
  allowed: T.Boolean(),
  message: T.Optional(T.String()),
  spent: T.Optional(
    T.Object(
      { organization: SpentInPeriods, api_key: SpentInPeriods },
      { description: "Spend so far of each scope that has a budget (0 for one without)" },
    ),
  ),
});
export type BudgetAnswer = Static<typeof BudgetAnswer>;

/** One request's tokens and cost, as /internal/policy/track_usage counts them. */
export const UsageRecordWire = T.Object({
  org_id: Uuid,
  deployment_id: T.Optional(Uuid),
  api_key_id: T.Optional(Uuid),
  prompt_tokens: T.Integer({ minimum: 0 }),
  completion_tokens: T.Integer({ minimum: 0 }),
  cost: T.Optional(
    T.Number({ minimum: 0, description: "What the request cost at its deployment's prices; default 0" }),
  ),
});
export type UsageRecordWire = Static<typeof UsageRecordWire>;

export const checkQuotaAnswer = TypeCompiler.Compile(QuotaAnswer);
export const checkBudgetAnswer = TypeCompiler.Compile(BudgetAnswer);
