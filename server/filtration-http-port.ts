// The inference gateway's FiltrationPort when the filtration gateway runs in another process and the
// inference gateway has no shared PostgreSQL (SERVICES without `filtration`, no DATABASE_URL,
// FILTRATION_URL set; on a shared PostgreSQL it reads the database itself, server/compose.ts): its
// /internal/* endpoints over HTTP with X-Internal-API-Key. The runtime caches contexts, so a filtration
// side that cannot be reached leaves known contexts serving while new ones fail closed; a deployment
// with a prompt template or retrieval calls /internal/prompt/process on every request.
// In server/, not adapters/: it is the client side of this platform's own internal HTTP API (the
// server side is routes/filtration/internal/), and the port it implements, with the policy, message
// and response types it carries, is declared in services/, above adapters.
// Every answer is checked against its endpoint's contract (contracts/internal/) before a field is read:
// a filtration gateway of another version fails here, by name, rather than deep in a request.

import type { Static, TSchema } from "@sinclair/typebox";
import type { TypeCheck, ValueError, ValueErrorIterator } from "@sinclair/typebox/compiler";
import type { UsageRecordWire } from "#contracts/internal/policy.ts";
import { checkBudgetAnswer, checkQuotaAnswer } from "#contracts/internal/policy.ts";
import { checkProcessedPrompt } from "#contracts/internal/prompt.ts";
import { checkModelsAnswer, checkResolveAnswer } from "#contracts/internal/resolve.ts";
import { checkDeletedStoredResponse, checkFoundResponse } from "#contracts/internal/responses.ts";
import { AppError } from "#core/errors.ts";
import { BatchRefused } from "#services/inference/batcher.ts";
import type { FiltrationPort, UsageRecord } from "#services/inference/port.ts";
import { resolutionFromWire } from "#services/inference-context/resolve-wire.ts";
import { fromWire, toWire } from "#services/responses/wire.ts";

export interface HttpFiltrationOptions {
  /** The filtration gateway's base URL, e.g. http://filtration:8000. */
  baseUrl: string;
  internalApiKey: string;
  /** Per call; the hot path must not wait long on a side that is down. */
  timeoutMs?: number;
}

const unreachable = (why: string) =>
  new AppError("unavailable", "the filtration service cannot be reached", {
    openai_code: "service_unavailable",
    cause: why,
  });

/** The calls the port makes: a POST whose answer is read back checked, or whose answer is not read. */
interface InternalClient {
  call<S extends TSchema>(path: string, body: unknown, check: TypeCheck<S>): Promise<Static<S>>;
  send(path: string, body: unknown): Promise<void>;
  /** As send; a batch the filtration side refused (4xx) is dropped by the batcher rather than sent again. */
  sendBatch(path: string, body: unknown): Promise<void>;
}

/** A refusal of what we sent is our bug, not an outage: say so rather than retry forever. */
async function failureOf(path: string, response: Response): Promise<AppError> {
  const text = await response.text().catch(() => "");
  if (response.status >= 400 && response.status < 500) {
    return new AppError(
      "internal",
      `filtration ${path} refused the call (${response.status}): ${text.slice(0, 200)}`,
      { refused: true },
    );
  }
  return unreachable(`${path} answered ${response.status}`);
}

/**
 * The problem to report: a union (ok or refused) fails as a whole at "/", so the branch errors are
 * searched for the deepest field that failed, the one a reader can act on.
 */
function deepestError(errors: ValueErrorIterator): ValueError | undefined {
  let deepest: ValueError | undefined;
  for (const error of errors) {
    const nested = error.errors.map(deepestError).filter((e) => e !== undefined);
    for (const candidate of [error, ...nested]) {
      if (!deepest || candidate.path.length > deepest.path.length) deepest = candidate;
    }
  }
  return deepest;
}

function internalClient(options: HttpFiltrationOptions): InternalClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 2000;

  async function post(path: string, body: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-internal-api-key": options.internalApiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw unreachable(error instanceof Error ? error.message : String(error));
    }
    if (!response.ok) throw await failureOf(path, response);
    return response;
  }

  return {
    async call(path, body, check) {
      const answer: unknown = await (await post(path, body)).json();
      if (check.Check(answer)) return answer;
      const problem = deepestError(check.Errors(answer));
      throw unreachable(
        `${path} answered outside its contract (${problem?.path || "/"}: ${problem?.message})`,
      );
    },
    async send(path, body) {
      await post(path, body);
    },
    async sendBatch(path, body) {
      try {
        await post(path, body);
      } catch (error) {
        if (error instanceof AppError && error.details?.refused) throw new BatchRefused(error.message);
        throw error;
      }
    },
  };
}

function responsesPort(client: InternalClient): FiltrationPort["responses"] {
  return {
    async save(r) {
      await client.send("/internal/responses/save", toWire(r));
    },
    async find(apiKey, id) {
      const body = await client.call("/internal/responses/find", { api_key: apiKey, id }, checkFoundResponse);
      if (!body.found) return { ok: false, reason: body.reason };
      return { ok: true, response: fromWire(body.response) };
    },
    async delete(apiKey, id) {
      const lookup = { api_key: apiKey, id };
      const body = await client.call("/internal/responses/delete", lookup, checkDeletedStoredResponse);
      return body.deleted ? { ok: true } : { ok: false, reason: body.reason ?? "not_found" };
    },
  };
}

const usageWireOf = (r: UsageRecord): UsageRecordWire => ({
  org_id: r.orgId,
  deployment_id: r.deploymentId,
  api_key_id: r.apiKeyId,
  prompt_tokens: r.promptTokens,
  completion_tokens: r.completionTokens,
  ...(r.cost ? { cost: r.cost } : {}),
});

type PolicyPort = Pick<FiltrationPort, "checkQuota" | "checkBudget" | "trackUsage">;

function policyPort(client: InternalClient): PolicyPort {
  return {
    async checkQuota(orgId, deploymentId, tokens) {
      const check = { org_id: orgId, deployment_id: deploymentId, tokens };
      const body = await client.call("/internal/policy/check_quota", check, checkQuotaAnswer);
      return {
        allowed: body.allowed,
        resetAt: body.reset_at,
        remainingRequests: body.remaining_requests,
        remainingTokens: body.remaining_tokens,
        usedRequests: body.used_requests,
        usedTokens: body.used_tokens,
      };
    },
    checkBudget: (orgId, apiKeyId) =>
      client.call(
        "/internal/policy/check_budget",
        { org_id: orgId, ...(apiKeyId ? { api_key_id: apiKeyId } : {}) },
        checkBudgetAnswer,
      ),
    async trackUsage(records) {
      if (records.length === 0) return;
      await client.sendBatch("/internal/policy/track_usage", { records: records.map(usageWireOf) });
    },
  };
}

export function httpFiltration(options: HttpFiltrationOptions): FiltrationPort {
  const client = internalClient(options);
  return {
    responses: responsesPort(client),
    ...policyPort(client),
    async resolve(apiKey, model) {
      const request = { api_key: apiKey, model };
      return resolutionFromWire(await client.call("/internal/context/resolve", request, checkResolveAnswer));
    },
    async models(apiKey) {
      const body = await client.call("/internal/context/models", { api_key: apiKey }, checkModelsAnswer);
      return body.valid ? body.data : undefined;
    },
    async processPrompt(context, messages) {
      const processed = await client.call(
        "/internal/prompt/process",
        {
          messages,
          template_id: context.prompt?.template_id,
          rag_config: context.rag,
          indirect_injection: context.guardrails?.input?.indirect_injection,
          deployment_id: context.deployment.id,
          org_id: context.orgId,
          policies_resolved: true,
        },
        checkProcessedPrompt,
      );
      return {
        messages: processed.messages,
        retrieval: processed.retrieval,
        ...(processed.blocked_by ? { blockedBy: processed.blocked_by } : {}),
      };
    },
    async writeLogs(entries) {
      if (entries.length === 0) return;
      await client.sendBatch("/internal/logs/create", { entries });
    },
  };
}
