// Step (4) of admission as reservations: the organization's quota (requests and tokens per day) and
// the budgets of the organization and of the key (money per day and month) are charged the call's
// maximum when it is admitted, and settled with what it used when it ends (services/limits/
// reservations.ts says the rule). The maximum: one request; the call's maximum tokens (call-maximum.ts:
// the prompt's estimate plus max_tokens, or what the deployment's context leaves, or
// `defaultCompletionReservation` where the context is not known); priced at the deployment's token
// prices. A deployment priced by the hour has no maximum before the call: it reserves nothing
// and is held by the spend counted so far.
import type { Usage } from "#contracts/openai/chat.ts";
import type { Charge, ReservationStore } from "#core/ports/reservations.ts";
import { type BudgetLine, refusalOf } from "../spend/budgets.ts";
import { utcDayOf, utcMonthOf } from "../spend/periods.ts";
import { costOf } from "../spend/prices.ts";
import { type CallTokens, maximumTokens } from "./call-maximum.ts";
import type { BudgetStanding, InferenceContext, QuotaStanding } from "./port.ts";

const dayTtlMs = 2 * 86_400_000;
const monthTtlMs = 32 * 86_400_000;

type Measure = "requests" | "tokens" | "cost";

interface Line {
  charge: Charge;
  measure: Measure;
  /** The 429's message when this line refuses. */
  refusal: (used: number) => string;
}

export interface Standings {
  quota?: QuotaStanding | undefined;
  budget?: BudgetStanding | undefined;
}

const quotaRefusal = () => "the organization's quota is used up";

/** The counters a call is charged to, and how much. */
export function allowanceLines(
  context: InferenceContext,
  call: CallTokens,
  standings: Standings,
  now: Date,
): Line[] {
  const lines: Line[] = [];
  const day = utcDayOf(now);
  const month = utcMonthOf(now);
  const total = maximumTokens(call, context.contextTokens);
  const completion = Math.max(0, total - call.promptTokens);
  const { quota } = context;
  if (quota?.requests_per_day !== undefined) {
    lines.push({
      measure: "requests",
      refusal: quotaRefusal,
      charge: {
        key: `q:r:${context.orgId}:${day}`,
        limit: quota.requests_per_day,
        amount: 1,
        certain: 1,
        used: standings.quota?.usedRequests ?? 0,
        ttlMs: dayTtlMs,
      },
    });
  }
  if (quota?.tokens_per_day !== undefined) {
    lines.push({
      measure: "tokens",
      refusal: quotaRefusal,
      charge: {
        key: `q:t:${context.orgId}:${day}`,
        limit: quota.tokens_per_day,
        amount: total,
        certain: call.promptTokens,
        used: standings.quota?.usedTokens ?? 0,
        ttlMs: dayTtlMs,
      },
    });
  }
  const budgets = context.budgets;
  if (budgets) {
    const cost = costOf(context.price, {
      promptTokens: call.promptTokens,
      completionTokens: completion,
      latencyMs: 0,
      replicas: Math.max(1, context.endpoints.length),
    });
    const scopes = [
      { scope: "api_key", budget: context.apiKeyId ? budgets.api_key : undefined, id: context.apiKeyId },
      { scope: "organization", budget: budgets.organization, id: context.orgId },
    ] as const;
    for (const { scope, budget, id } of scopes) {
      for (const period of ["day", "month"] as const) {
        const limit = period === "day" ? budget?.max_spend_per_day : budget?.max_spend_per_month;
        if (limit === undefined) continue;
        const line: Omit<BudgetLine, "spent"> = { scope, period, limit };
        lines.push({
          measure: "cost",
          refusal: (used) => refusalOf({ ...line, spent: used }),
          charge: {
            key: `b:${scope === "api_key" ? "k" : "o"}:${id}:${period === "day" ? day : month}`,
            limit,
            amount: cost,
            certain: 0,
            used: standings.budget?.spent?.[scope][period] ?? 0,
            ttlMs: period === "day" ? dayTtlMs : monthTtlMs,
          },
        });
      }
    }
  }
  return lines;
}

/** What a call holds once admitted: settled exactly once, with its usage (none: all refunded). */
export interface Held {
  settle(usage: Usage | undefined, cost: number): void;
}

export type Reserved = { ok: true; held: Held } | { ok: false; message: string; measure: Measure };

export async function reserveAllowances(store: ReservationStore, lines: Line[]): Promise<Reserved> {
  const charges = lines.map((l) => l.charge);
  const result = await store.reserve(charges);
  if (!result.ok) {
    const line = lines[result.index] as Line;
    return { ok: false, message: line.refusal(result.used), measure: line.measure };
  }
  let settled = false;
  return {
    ok: true,
    held: {
      settle(usage, cost) {
        if (settled) return;
        settled = true;
        // A call without usage (refused later, failed, aborted before any token) is not counted by
        // the usage reports either: everything it reserved goes back.
        const used: Record<Measure, number> = {
          requests: usage ? 1 : 0,
          tokens: usage?.total_tokens ?? 0,
          cost: usage ? cost : 0,
        };
        void store
          .settle(
            lines.map((l) => ({
              key: l.charge.key,
              delta: used[l.measure] - l.charge.amount,
              reserved: l.charge.amount,
            })),
          )
          .catch(() => {});
      },
    },
  };
}
