// The most tokens a call may use, reserved when it is admitted (the token rate limit, the daily token
// quota, the budgets) and settled with its real usage when it ends. A call that sets no max_tokens may
// still write until the replica's context is full, so reserving only its prompt let parallel calls pass
// a tokens_per_minute limit ten times over (issue 33, finding 12).
//
// The maximum: the prompt's estimate plus max_tokens, or plus what the deployment's context leaves
// after the prompt; never more than the context itself (a replica cannot hold more, whatever the
// estimate says), unless the prompt's estimate alone is larger. A deployment whose context is not known
// (a hosted upstream, a container engine without max_model_len) reserves `defaultCompletionReservation`
// for a call without max_tokens.
import { DEFAULT_CONTEXT_SIZE } from "#adapters/engines/llama.cpp/config.ts";
import type { EngineId } from "#core/domain.ts";
import type { DeploymentConfiguration } from "#core/options.ts";

/** Completion tokens reserved for a call without max_tokens on a deployment of unknown context. */
export const defaultCompletionReservation = 4096;

const positiveInt = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);

/**
 * Tokens one sequence of the deployment holds (prompt and completion), as its configuration states it:
 * `context_size` (llama.cpp's CONTEXT_SIZE) or `max_model_len` (the container engines', also accepted
 * for a hosted model). A llama.cpp worker started without one uses DEFAULT_CONTEXT_SIZE (capped by the
 * model's training length, so this is an upper bound). Undefined: not known.
 */
export function contextTokensOf(
  engine: EngineId,
  configuration: DeploymentConfiguration,
): number | undefined {
  const stated = positiveInt(configuration.context_size) ?? positiveInt(configuration.max_model_len);
  if (stated !== undefined) return stated;
  return engine === "llama.cpp" ? DEFAULT_CONTEXT_SIZE : undefined;
}

export interface CallTokens {
  /** The prompt's estimate: certain to be used, so it must fit under a limit. */
  promptTokens: number;
  /** The call's max_tokens (max_output_tokens, max_tokens of Messages), when it sets one. */
  maxTokens?: number | undefined;
}

/** The call's maximum in tokens (prompt and completion) on a deployment of `contextTokens`. */
export function maximumTokens(call: CallTokens, contextTokens: number | undefined): number {
  const completion =
    call.maxTokens ??
    (contextTokens === undefined
      ? defaultCompletionReservation
      : Math.max(0, contextTokens - call.promptTokens));
  const asked = call.promptTokens + completion;
  return contextTokens === undefined ? asked : Math.min(asked, Math.max(contextTokens, call.promptTokens));
}
