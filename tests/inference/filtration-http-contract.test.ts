// The inference gateway's HTTP client of the filtration gateway checks each answer against its endpoint's
// contract (contracts/internal/) before it reads a field: an answer from a filtration gateway of another
// version is refused by name (503, the side cannot be used), never read as a context with holes in it.
// A conforming answer reads back as the context the filtration side resolved (resolve-wire.ts both ways).

import { afterAll, expect, test } from "bun:test";
import { AppError } from "#core/errors.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import type { ResolvedContext } from "#services/inference-context/resolve.ts";
import { resolutionToWire } from "#services/inference-context/resolve-wire.ts";

/** A filtration side that answers every call with the body the test sets. */
let answer: unknown;
const fake = Bun.serve({ port: 0, fetch: () => Response.json(answer) });
afterAll(() => fake.stop(true));

const port = httpFiltration({ baseUrl: `http://127.0.0.1:${fake.port}`, internalApiKey: "k" });

/** Why a call failed: the AppError it rejected with. */
async function refusalOf(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

const context: ResolvedContext = {
  orgId: "0190b7a0-0000-7000-8000-000000000001",
  apiKeyId: "0190b7a0-0000-7000-8000-000000000002",
  keyPrefix: "sk-abc",
  deployment: { id: "0190b7a0-0000-7000-8000-000000000003", name: "chat", status: "RUNNING" },
  endpoints: ["http://replica:8080"],
  upstream: { wire: "anthropic", model: "claude", apiKey: "secret" },
  rateLimit: { requests_per_minute: 10 },
  quota: undefined,
  guardrails: undefined,
  rag: undefined,
  prompt: { template_id: "0190b7a0-0000-7000-8000-000000000004" },
  fallbacks: [{ deployment: { id: "d2", name: "other" }, endpoints: ["http://r2:8080"] }],
  contextTokens: 4096,
};

test("a resolve answer outside the contract is refused, naming the endpoint and the field", async () => {
  const wire = resolutionToWire({ ok: true, context });
  if (!wire.valid) throw new Error("the context resolves");
  const { endpoints: _left, ...withoutEndpoints } = wire;
  answer = withoutEndpoints;
  const refusal = await refusalOf(port.resolve("sk-abc", "chat"));
  expect(refusal.code).toBe("unavailable");
  expect(String(refusal.details?.cause)).toContain("/internal/context/resolve answered outside its contract");
  expect(String(refusal.details?.cause)).toContain("/endpoints");
});

test("a resolve answer in the contract reads back as the context the filtration side resolved", async () => {
  answer = resolutionToWire({ ok: true, context });
  const { deployment, ...rest } = context;
  expect(await port.resolve("sk-abc", "chat")).toEqual({
    ok: true,
    context: {
      ...rest,
      deployment: { id: deployment.id, name: deployment.name },
      classifierEndpoints: undefined,
      coldStart: undefined,
    },
  });
  answer = resolutionToWire({ ok: false, reason: "model_not_found" });
  expect(await port.resolve("sk-abc", "chat")).toEqual({
    ok: false,
    reason: "model_not_found",
    caller: undefined,
  });
});

test("the other answers are checked too: a quota answer without its counts is refused", async () => {
  answer = { allowed: true };
  const refusal = await refusalOf(port.checkQuota(context.orgId, context.deployment.id, 1));
  expect(String(refusal.details?.cause)).toContain(
    "/internal/policy/check_quota answered outside its contract",
  );
});
