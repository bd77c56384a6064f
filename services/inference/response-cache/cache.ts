// The response cache of the inference lifecycle (README.md beside this file): after the input
// guardrails and prompt processing, before the model. A request its policy makes cacheable is looked
// up by its exact key (key.ts), then, in semantic mode, by its question's nearest neighbour; a miss
// leads the computing of its answer, which identical requests arriving meanwhile wait for instead of
// calling the model too (in this process: one flight per key; across processes sharing Redis: a short
// claim), and which is stored once complete.
import { embedTexts } from "#adapters/upstream/embed.ts";
import { AppError } from "#core/errors.ts";
import type { CachePolicy } from "#core/policies.ts";
import type { InferenceMetrics } from "../metrics.ts";
import { type OutgoingRequest, seriesKeyOf, type UpstreamClient } from "../upstream-client.ts";
import { contextKey, exactKey, type KeyParts } from "./key.ts";
import type { CachedAnswer } from "./replay.ts";
import { SemanticIndex } from "./semantic-index.ts";
import { type CacheScope, type ResponseCacheStore, scopeId } from "./store.ts";

/** What the caller said of freshness (the route reads it from Cache-Control). */
export interface CacheDirective {
  /** Do not answer from the cache (the fresh answer is still stored). */
  noCache?: boolean | undefined;
  /** Neither answer from the cache nor store this answer. */
  noStore?: boolean | undefined;
  /** A stored answer up to this old will do; it also opts a request that is not `temperature: 0` in. */
  maxAgeS?: number | undefined;
}

export const cacheDefaults = { ttlS: 3600, maxEntries: 10_000 } as const;
/** The largest answer kept (its JSON's bytes): a cache of a few long answers would crowd out the rest. */
export const maxEntryBytes = 1024 * 1024;
/** How long another process's claim on a key makes this one wait for its answer before computing. */
const claimWaitMs = 30_000;
const claimPollMs = 25;
const embedTimeoutMs = 2000;

export interface CacheRequest {
  orgId: string;
  deployment: { id: string; name: string };
  policy: CachePolicy | undefined;
  /** The body sent upstream: the caller's, with the messages that reach the model. */
  body: { [field: string]: unknown };
  outputPolicy: unknown;
  directive: CacheDirective | undefined;
  /** Ready replicas of the semantic cache's embedding deployment. */
  embeddingEndpoints?: string[] | undefined;
}

/** What the lifecycle does with one request; undefined: no cache policy applies. */
export interface CachePlan {
  scope: CacheScope;
  key: string;
  lookup: boolean;
  store: boolean;
  ttlMs: number;
  maxEntries: number;
  /** Answers older than this are not served (the TTL, or the caller's max-age when shorter). */
  maxAgeMs: number;
  labels: { deployment: string; deployment_id: string };
  semantic?: { question: string; contextKey: string; endpoints: string[]; model: string; threshold: number };
}

export type CacheLookup =
  | { hit: true; kind: "exact" | "semantic"; answer: CachedAnswer }
  | { hit: false; lead: CacheLead | undefined };

/** The request computing an answer others may wait for: exactly one of these is called. */
export interface CacheLead {
  /** The answer as the client got it: a chat.completion (a streamed one put together). */
  complete(answer: { [field: string]: unknown }): void;
  abandon(): void;
}

interface Flight {
  promise: Promise<string | undefined>;
  settle(text: string | undefined): void;
  /** When its answer came (the cache's clock), while the store is still writing it. */
  settledAtMs?: number | undefined;
}

export class ResponseCache {
  private readonly flights = new Map<string, Flight>();
  private readonly semantic = new SemanticIndex();

  constructor(
    readonly store: ResponseCacheStore,
    private readonly metrics: InferenceMetrics,
    private readonly now: () => number = Date.now,
    /** The runtime's client: the question's embedding is traced and measured as any replica call. */
    private readonly upstream?: UpstreamClient | undefined,
  ) {}

  plan(request: CacheRequest): CachePlan | undefined {
    const { policy, directive } = request;
    if (!policy || policy.mode === "off") return undefined;
    const ttlMs = (policy.ttl_s ?? cacheDefaults.ttlS) * 1000;
    const maxAgeS = directive?.maxAgeS;
    // temperature 0 asks for the model's one most likely answer: computing it again gives nothing new.
    // Any other request is sampled, and is cached only when the caller says a kept answer will do.
    const eligible = request.body.temperature === 0 || maxAgeS !== undefined;
    const parts: KeyParts = {
      orgId: request.orgId,
      deploymentId: request.deployment.id,
      body: request.body,
      outputPolicy: request.outputPolicy,
    };
    const plan: CachePlan = {
      scope: { orgId: request.orgId, deploymentId: request.deployment.id },
      key: exactKey(parts),
      lookup: eligible && !directive?.noCache && !directive?.noStore,
      store: eligible && !directive?.noStore,
      ttlMs,
      maxEntries: policy.max_entries ?? cacheDefaults.maxEntries,
      maxAgeMs: maxAgeS === undefined ? ttlMs : Math.min(ttlMs, maxAgeS * 1000),
      labels: { deployment: request.deployment.name, deployment_id: request.deployment.id },
    };
    const question = policy.mode === "semantic" ? singleTurnQuestion(request.body) : undefined;
    if (question !== undefined && policy.semantic && request.embeddingEndpoints?.length) {
      plan.semantic = {
        question,
        contextKey: contextKey(parts, question),
        endpoints: request.embeddingEndpoints,
        model: policy.semantic.embedding_deployment,
        threshold: policy.semantic.threshold,
      };
    }
    return plan;
  }

  /**
   * A stored answer, or the lead of computing it. Identical requests arriving while one computes wait
   * for its answer (in this process always; across processes when the store takes claims).
   */
  async find(plan: CachePlan, signal: AbortSignal): Promise<CacheLookup> {
    if (!plan.lookup) {
      this.count(plan, "exact", plan.store ? "bypass" : "skipped");
      return { hit: false, lead: plan.store ? this.lead(plan, undefined, undefined) : undefined };
    }
    const id = `${scopeId(plan.scope)}:${plan.key}`;
    const flying = this.flights.get(id);
    const settledAt = flying?.settledAtMs;
    if (flying && (settledAt === undefined || this.now() - settledAt < plan.maxAgeMs)) {
      const text = await untilAborted(flying.promise, signal);
      const answer = text === undefined ? undefined : parse(text);
      if (answer) {
        this.served(plan, "exact", text as string);
        return { hit: true, kind: "exact", answer };
      }
      // The request it waited for failed: this one asks the model itself, without leading.
      this.count(plan, "exact", "miss");
      return { hit: false, lead: undefined };
    }
    // Leading from here on, synchronously after the check: requests arriving during the lookup wait.
    const flight = newFlight();
    this.flights.set(id, flight);
    const endFlight = (text: string | undefined) => {
      flight.settle(text);
      flight.settledAtMs ??= this.now();
      if (this.flights.get(id) === flight) this.flights.delete(id);
    };
    try {
      const stored = await this.fresh(plan, plan.key);
      if (stored) {
        endFlight(stored.text);
        this.served(plan, "exact", stored.text);
        return { hit: true, kind: "exact", answer: stored.answer };
      }
      let vector: Float32Array | undefined;
      if (plan.semantic) {
        vector = await this.embed(plan.semantic, signal);
        const near = vector && this.nearest(plan, plan.semantic, vector);
        const found = near ? await this.fresh(plan, near) : undefined;
        if (found) {
          endFlight(found.text);
          this.served(plan, "semantic", found.text);
          return { hit: true, kind: "semantic", answer: found.answer };
        }
      }
      const claimed = await this.claim(plan, signal);
      if (claimed.answer) {
        endFlight(claimed.answer.text);
        this.served(plan, "exact", claimed.answer.text);
        return { hit: true, kind: "exact", answer: claimed.answer.answer };
      }
      this.count(plan, "exact", "miss");
      // Waiters get the answer at once; the flight stays findable until the store has it, so a request
      // arriving in between neither misses the store nor computes again.
      const ending = {
        settle: (text: string | undefined) => {
          flight.settle(text);
          flight.settledAtMs = this.now();
        },
        end: () => endFlight(undefined),
      };
      return { hit: false, lead: this.lead(plan, ending, vector, claimed.held) };
    } catch (error) {
      endFlight(undefined);
      throw error;
    }
  }

  private lead(
    plan: CachePlan,
    flight: { settle(text: string | undefined): void; end(): void } | undefined,
    vector: Float32Array | undefined,
    claimHeld = false,
  ): CacheLead {
    let done = false;
    const release = () => {
      flight?.end();
      if (claimHeld) void this.store.release?.(plan.scope, plan.key).catch(() => {});
    };
    return {
      complete: (answer) => {
        if (done) return;
        done = true;
        const text = JSON.stringify(answer);
        // Waiting requests get the answer even when it is too large to keep.
        flight?.settle(text);
        const bytes = Buffer.byteLength(text);
        if (!plan.store || bytes > maxEntryBytes) return release();
        const storedAtMs = this.now();
        this.metrics.responseCacheBytes.inc({ ...plan.labels, direction: "stored" }, bytes);
        void this.store
          .put(plan.scope, plan.key, { text, storedAtMs }, { ttlMs: plan.ttlMs, maxEntries: plan.maxEntries })
          .finally(release);
        if (plan.semantic && vector) {
          this.semantic.add(
            scopeId(plan.scope),
            { contextKey: plan.semantic.contextKey, vector, key: plan.key, storedAtMs },
            plan.maxEntries,
          );
        }
      },
      abandon: () => {
        if (done) return;
        done = true;
        flight?.settle(undefined);
        release();
      },
    };
  }

  /** The stored answer of `key` if it is young enough for this request. */
  private async fresh(plan: CachePlan, key: string) {
    const stored = await this.store.get(plan.scope, key);
    if (!stored || this.now() - stored.storedAtMs >= plan.maxAgeMs) return undefined;
    const answer = parse(stored.text);
    return answer && { text: stored.text, answer };
  }

  private nearest(plan: CachePlan, semantic: NonNullable<CachePlan["semantic"]>, vector: Float32Array) {
    const near = this.semantic.nearest(
      scopeId(plan.scope),
      semantic.contextKey,
      vector,
      this.now() - plan.maxAgeMs,
    );
    return near && near.similarity >= semantic.threshold ? near.key : undefined;
  }

  /** The question's vector; undefined when the embedding deployment cannot answer (then exact only). */
  private async embed(semantic: NonNullable<CachePlan["semantic"]>, signal: AbortSignal) {
    const upstream = this.upstream;
    try {
      const [vector] = await embedTexts({
        endpoints: semantic.endpoints,
        model: semantic.model,
        texts: [semantic.question],
        timeoutMs: embedTimeoutMs,
        signal,
        send: upstream ? (request) => sendEmbedding(upstream, request, semantic.model) : undefined,
      });
      return vector;
    } catch {
      return undefined;
    }
  }

  /**
   * Across processes sharing the store: the first to claim computes; the others wait for its answer,
   * polling the store, up to claimWaitMs (then they compute too: a claim outlives a process that died).
   */
  private async claim(
    plan: CachePlan,
    signal: AbortSignal,
  ): Promise<{ held: boolean; answer?: { text: string; answer: CachedAnswer } | undefined }> {
    if (!plan.store || !this.store.claim) return { held: false };
    if (await this.store.claim(plan.scope, plan.key, claimWaitMs)) return { held: true };
    const until = this.now() + claimWaitMs;
    const started = performance.now();
    while (performance.now() - started < claimWaitMs && this.now() < until) {
      await untilAborted(Bun.sleep(claimPollMs), signal);
      const stored = await this.fresh(plan, plan.key);
      if (stored) return { held: false, answer: stored };
    }
    return { held: false };
  }

  private served(plan: CachePlan, kind: "exact" | "semantic", text: string) {
    this.count(plan, kind, "hit");
    this.metrics.responseCacheBytes.inc({ ...plan.labels, direction: "served" }, Buffer.byteLength(text));
  }

  private count(plan: CachePlan, kind: "exact" | "semantic", result: string) {
    this.metrics.responseCache.inc({ ...plan.labels, kind, result });
  }
}

/**
 * The question of a single-turn request without tools: its one user message's text. Undefined for a
 * conversation (an earlier answer to "and then?" is no answer here), a request with tools (an agent's
 * step), or a user message that is not plain text.
 */
function singleTurnQuestion(body: CacheRequest["body"]): string | undefined {
  if (Array.isArray(body.tools) && body.tools.length > 0) return undefined;
  if (Array.isArray(body.functions) && body.functions.length > 0) return undefined;
  const messages = Array.isArray(body.messages)
    ? (body.messages as { role?: unknown; content?: unknown }[])
    : [];
  const turns = messages.filter((m) => m.role !== "system" && m.role !== "developer");
  const [only] = turns;
  if (turns.length !== 1 || only?.role !== "user") return undefined;
  if (typeof only.content === "string") return only.content;
  if (!Array.isArray(only.content)) return undefined;
  const parts = only.content as { type?: unknown; text?: unknown }[];
  if (!parts.every((p) => p.type === "text" && typeof p.text === "string")) return undefined;
  return parts.map((p) => p.text).join("\n");
}

function newFlight(): Flight {
  let settle: (text: string | undefined) => void = () => {};
  const promise = new Promise<string | undefined>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

function parse(text: string): CachedAnswer | undefined {
  try {
    const answer = JSON.parse(text) as CachedAnswer;
    return Array.isArray(answer?.choices) ? answer : undefined;
  } catch {
    return undefined;
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AppError("upstream_error", "the client went away"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AppError("upstream_error", "the client went away"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** The semantic cache's question embedded by its embedding deployment, named by its name in the series. */
function sendEmbedding(upstream: UpstreamClient, request: OutgoingRequest, model: string) {
  const labels = { deployment: model, deployment_id: "" };
  return upstream.send(request, { operation: "embeddings", labels, key: seriesKeyOf(labels) });
}
