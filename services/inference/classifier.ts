// The `classifier` guardrail: asks a RUNNING deployment of the organization (a guard model such as
// Llama Guard served by llama.cpp) whether the input is safe, within `timeout_ms`. Its answer's
// first word decides: "unsafe" scores 1, "safe" 0, a number in 0..1 is the score itself. When it
// cannot answer (no ready replica, an error, the time-out, an answer it cannot read) the policy's
// `on_error` decides: `allow` (fail open, the default) or `block` (fail closed).
import { sendUpstream } from "../../adapters/upstream/send.ts";
import type { ClassifierConfig } from "../policies/schemas.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface ClassifierVerdict {
  action: "allow" | "log" | "block";
  /** 0..1 when the classifier answered. */
  score?: number;
  /** Why it could not answer (never the text it was asked about). */
  error?: string;
}

const instruction =
  'You are a content safety classifier. Read the user\'s message and answer with one word: "safe" or ' +
  '"unsafe" (optionally followed by a category on the next line).';

/** The score an answer carries, or undefined when it says neither safe, unsafe nor a number. */
export function scoreOf(answer: string): number | undefined {
  const first = answer.trim().toLowerCase().split(/\s+/)[0] ?? "";
  if (first.startsWith("unsafe")) return 1;
  if (first.startsWith("safe")) return 0;
  const n = Number(first);
  return Number.isFinite(n) && n >= 0 && n <= 1 ? n : undefined;
}

export async function classify(
  runtime: InferenceRuntime,
  config: ClassifierConfig,
  endpoints: readonly string[] | undefined,
  text: string,
  signal: AbortSignal,
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
    const upstream = await sendUpstream(runtime.balancer, {
      endpoints,
      path: "/chat/completions",
      body: JSON.stringify({
        model: config.deployment,
        messages: [
          { role: "system", content: instruction },
          { role: "user", content: text },
        ],
        max_tokens: 8,
        temperature: 0,
      }),
      signal: deadline,
      connectTimeoutMs: timeoutMs,
      firstByteTimeoutMs: timeoutMs,
    });
    try {
      if (!upstream.response.ok) return failed(`the classifier answered ${upstream.response.status}`);
      const answer = (await upstream.response.json()) as { choices?: { message?: { content?: string } }[] };
      const score = scoreOf(answer.choices?.[0]?.message?.content ?? "");
      if (score === undefined) return failed("the classifier's answer says neither safe nor unsafe");
      const hit = score >= (config.threshold ?? 0.5);
      return { action: hit ? (config.action === "block" ? "block" : "log") : "allow", score };
    } finally {
      upstream.release();
    }
  } catch (error) {
    if (signal.aborted) throw error;
    return failed(
      deadline.aborted
        ? `the classifier did not answer within ${timeoutMs} ms`
        : String((error as Error).message ?? error),
    );
  }
}
