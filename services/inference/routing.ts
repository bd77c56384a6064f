// Where an admitted request goes: the asked deployment's replicas (the one holding the longest prefix
// of the prompt within a load bound, else the least busy in rotation; see adapters/upstream/balancer.ts), then the fallbacks of its routing policy in order, each tried when
// the one before has no replica in rotation, answers 5xx or 429, or does not answer in time. The first
// other answer is the request's: 2xx, or a 4xx refusal that any deployment would repeat. Admission
// (key, limits, quota, guardrails, templates) happened once, for the asked deployment.
import { replicaError } from "#adapters/upstream/refusal.ts";
import type { UpstreamResponse, WireRoute } from "#adapters/upstream/send.ts";
import { wireOf } from "#adapters/upstream/wire/index.ts";
import { AppError, type ErrorCode } from "#core/errors.ts";
import { type InferenceRequest, unresolved } from "./admission.ts";
import type { InferenceContext, RouteTarget } from "./port.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface RoutedCall {
  /** Appended to a replica's base URL, e.g. /chat/completions. */
  path: string;
  /**
   * The body for one deployment, naming the model as its replicas know it: the deployment's name, or
   * for a hosted deployment the upstream's model (its inference_model: the alias resolved).
   */
  body(modelName: string): string;
  signal: AbortSignal;
  firstByteTimeoutMs: number;
  /**
   * The prompt's block hashes (prefix-blocks.ts) when prefix affinity is on: each deployment tried
   * prefers its replica that served the longest prefix of them. Absent: fewest in flight.
   */
  prefixBlocks?: readonly bigint[] | undefined;
  /** Whether the body asks for a stream: a hosted upstream's wire adapter frames it (default false). */
  stream?: boolean | undefined;
}

export interface RoutedResponse extends UpstreamResponse {
  /** The deployment that answered: the asked one, or one of its fallbacks. */
  servedBy: RouteTarget["deployment"];
  /** The prices of the deployment that answered (a fallback's own, e.g. a hosted model's). */
  servedPrice?: RouteTarget["price"];
}

/** What a deployment failing looks like once sendUpstream has retried on another of its replicas. */
const fallsBack: ReadonlySet<ErrorCode> = new Set(["upstream_error", "upstream_timeout"]);

/**
 * An upstream refusing the platform's credential (401, 403) is the upstream's failure, never the
 * caller's 401 (CONTRACTS "Hosted upstreams"): 502 `upstream_auth_failed` in every door's shape, and
 * the next target (a fallback) is tried as for any failing deployment.
 */
export function upstreamAuthFailed(deployment: RouteTarget["deployment"], status: number): AppError {
  return new AppError(
    "upstream_error",
    `upstream_auth_failed: the hosted upstream of deployment ${deployment.name} refused the platform's credential (HTTP ${status}); check the credential the deployment names`,
    { openai_code: "upstream_auth_failed" },
  );
}

/** How a target's requests travel: through its wire adapter when it is hosted. */
function wireRouteOf(target: RouteTarget, call: RoutedCall): WireRoute | undefined {
  const upstream = target.upstream;
  if (!upstream) return undefined;
  const adapter = wireOf(upstream.wire);
  if (!adapter) throw new AppError("upstream_error", `this gateway has no wire adapter for ${upstream.wire}`);
  const { wire: _, ...hosted } = upstream;
  return { adapter, target: hosted, stream: call.stream === true };
}

export async function sendRouted(
  // It counts and logs an upstream's refused credential per deployment; tests may leave that out.
  runtime: Pick<InferenceRuntime, "balancer" | "timeouts"> &
    Partial<Pick<InferenceRuntime, "upstreamAuthFailed">>,
  request: Pick<InferenceRequest, "send">,
  context: Pick<InferenceContext, "deployment" | "endpoints" | "fallbacks" | "upstream" | "price">,
  call: RoutedCall,
): Promise<RoutedResponse> {
  const targets: RouteTarget[] = [
    {
      deployment: context.deployment,
      endpoints: context.endpoints,
      upstream: context.upstream,
      price: context.price,
    },
    ...(context.fallbacks ?? []),
  ];
  let failure: AppError | undefined;
  let attempted = false;
  // First only replicas in rotation; when none is anywhere, those out of it rather than nothing.
  for (const inRotationOnly of [true, false]) {
    for (const target of targets) {
      const endpoints = inRotationOnly ? runtime.balancer.inRotation(target.endpoints) : target.endpoints;
      if (endpoints.length === 0) continue;
      attempted = true;
      try {
        const upstream = await request.send({
          endpoints,
          path: call.path,
          body: call.body(target.upstream?.model ?? target.deployment.name),
          signal: call.signal,
          connectTimeoutMs: runtime.timeouts.connectMs,
          firstByteTimeoutMs: call.firstByteTimeoutMs,
          affinity: call.prefixBlocks && { scope: target.deployment.id, blocks: call.prefixBlocks },
          wire: wireRouteOf(target, call),
        });
        const status = upstream.response.status;
        if (target.upstream && (status === 401 || status === 403)) {
          await upstream.response.body?.cancel().catch(() => {});
          upstream.release();
          runtime.upstreamAuthFailed?.(target.deployment, status);
          failure = upstreamAuthFailed(target.deployment, status);
          continue;
        }
        if (status < 500 && status !== 429)
          return { ...upstream, servedBy: target.deployment, servedPrice: target.price };
        failure = await replicaError(upstream.response);
        upstream.release();
      } catch (error) {
        if (call.signal.aborted || !(error instanceof AppError) || !fallsBack.has(error.code)) throw error;
        failure = error;
      }
    }
    if (attempted) break;
  }
  throw failure ?? unresolved.deployment_unavailable();
}
