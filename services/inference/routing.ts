// Where an admitted request goes: the asked deployment's replicas (the one holding the longest prefix
// of the prompt within a load bound, else the least busy in rotation; see adapters/upstream/balancer.ts), then the fallbacks of its routing policy in order, each tried when
// the one before has no replica in rotation, answers 5xx or 429, or does not answer in time. The first
// other answer is the request's: 2xx, or a 4xx refusal that any deployment would repeat. Admission
// (key, limits, quota, guardrails, templates) happened once, for the asked deployment.
import { replicaError } from "#adapters/upstream/refusal.ts";
import type { UpstreamResponse } from "#adapters/upstream/send.ts";
import { AppError, type ErrorCode } from "../errors.ts";
import { type InferenceRequest, unresolved } from "./admission.ts";
import type { InferenceContext, RouteTarget } from "./port.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface RoutedCall {
  /** Appended to a replica's base URL, e.g. /chat/completions. */
  path: string;
  /** The body for one deployment: its replicas know the model by that deployment's name. */
  body(deploymentName: string): string;
  signal: AbortSignal;
  firstByteTimeoutMs: number;
  /**
   * The prompt's block hashes (prefix-blocks.ts) when prefix affinity is on: each deployment tried
   * prefers its replica that served the longest prefix of them. Absent: fewest in flight.
   */
  prefixBlocks?: readonly bigint[] | undefined;
}

export interface RoutedResponse extends UpstreamResponse {
  /** The deployment that answered: the asked one, or one of its fallbacks. */
  servedBy: RouteTarget["deployment"];
}

/** What a deployment failing looks like once sendUpstream has retried on another of its replicas. */
const fallsBack: ReadonlySet<ErrorCode> = new Set(["upstream_error", "upstream_timeout"]);

export async function sendRouted(
  runtime: Pick<InferenceRuntime, "balancer" | "timeouts">,
  request: Pick<InferenceRequest, "send">,
  context: Pick<InferenceContext, "deployment" | "endpoints" | "fallbacks">,
  call: RoutedCall,
): Promise<RoutedResponse> {
  const targets: RouteTarget[] = [
    { deployment: context.deployment, endpoints: context.endpoints },
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
          body: call.body(target.deployment.name),
          signal: call.signal,
          connectTimeoutMs: runtime.timeouts.connectMs,
          firstByteTimeoutMs: call.firstByteTimeoutMs,
          affinity: call.prefixBlocks && { scope: target.deployment.id, blocks: call.prefixBlocks },
        });
        const status = upstream.response.status;
        if (status < 500 && status !== 429) return { ...upstream, servedBy: target.deployment };
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
