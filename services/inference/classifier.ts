// The `classifier` guardrail: asks a RUNNING deployment of the organization (a guard model such as
// Llama Guard served by llama.cpp) whether the input is safe, within `timeout_ms`. `format` says which
// prompt it gets and how its answer reads (guard-formats.ts): by default its first word decides,
// "unsafe" scores 1, "safe" 0, a number in 0..1 is the score itself. When it
// cannot answer (no ready replica, an error, the time-out, an answer it cannot read) the policy's
// `on_error` decides: `allow` (fail open, the default) or `block` (fail closed).
import type { ClassifierConfig } from "#core/policies.ts";
import { guardRequest, readVerdict } from "./guard-formats.ts";
import type { InferenceRuntime } from "./runtime.ts";
import { seriesKeyOf, type UpstreamCallee } from "./upstream-client.ts";

export interface ClassifierVerdict {
  action: "allow" | "log" | "block";
  /** 0..1 when the classifier answered. */
  score?: number;
  /** The hazard categories (Llama Guard: S1..S14) or label (Prompt Guard) it named, when it found something. */
  categories?: string[];
  /** Why it could not answer (never the text it was asked about). */
  error?: string;
}

export { scoreOf } from "./guard-formats.ts";

export async function classify(
  runtime: Pick<InferenceRuntime, "upstream">,
  config: ClassifierConfig,
  endpoints: readonly string[] | undefined,
  text: string,
  signal: AbortSignal,
  /** Whom the call is for (default: the classifier's deployment, outside any request's span). */
  callee: UpstreamCallee = classifierCallee(config),
): Promise<ClassifierVerdict> {
  const failed = (error: string): ClassifierVerdict => ({
    action: config.on_error === "block" ? "block" : "log",
    error,
  });
  if (!endpoints || endpoints.length === 0)
    return failed(`the classifier deployment ${config.deployment} has no ready replica`);
  const timeoutMs = config.timeout_ms ?? 2000;
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const format = config.format ?? "label";
    const request = guardRequest(format, config.deployment, text, { policy: config.policy });
    const upstream = await runtime.upstream.send(
      {
        endpoints: request.atRoot ? endpoints.map((e) => e.replace(/\/v1\/?$/, "")) : endpoints,
        path: request.path,
        body: JSON.stringify(request.body),
        signal: deadline,
        connectTimeoutMs: timeoutMs,
        firstByteTimeoutMs: timeoutMs,
      },
      callee,
    );
    try {
      if (!upstream.response.ok) return failed(`the classifier answered ${upstream.response.status}`);
      const reading = readVerdict(format, await upstream.response.json().catch(() => null));
      if (reading === undefined) return failed("the classifier's answer says neither safe nor unsafe");
      const hit = reading.score >= (config.threshold ?? 0.5);
      if (!hit) return { action: "allow", score: reading.score };
      return {
        action: config.action === "block" ? "block" : "log",
        score: reading.score,
        ...(reading.categories ? { categories: reading.categories } : {}),
      };
    } finally {
      upstream.release();
    }
  } catch (error) {
    if (signal.aborted) throw error;
    return failed(
      deadline.aborted
        ? `the classifier did not answer within ${timeoutMs} ms`
        : error instanceof Error
          ? error.message
          : String(error),
    );
  }
}

/**
 * The classifier's deployment as the upstream series name it: by its name (the request's context
 * carries its replicas, not its id).
 */
export function classifierCallee(
  config: ClassifierConfig,
  parent?: UpstreamCallee["parent"],
): UpstreamCallee {
  const labels = { deployment: config.deployment, deployment_id: "" };
  return { operation: "chat", labels, key: seriesKeyOf(labels), parent };
}
