// What an inference answer says beside its body, as data: the rate limiter's standing, when to come
// back, which deployment answered in place of the one asked for, and the response cache's part. The
// lifecycle fills it (on a refusal too, which is why it is passed in rather than returned); the one
// place that turns it into HTTP headers is server/http/inference-answer.ts.
import type { RateDecision } from "#core/ports/rate-limiter.ts";

export interface AnswerMeta {
  /** The limits the request was counted against and what is left of them. */
  rateLimit?: Pick<RateDecision, "requests" | "tokens"> | undefined;
  /** Seconds until a refused request may be tried again. */
  retryAfterS?: number | undefined;
  /** The deployment that answered, when a fallback answered for the one asked for. */
  servedBy?: string | undefined;
  /** Where a cache policy applies: the answer came from the response cache (hit) or the model (miss). */
  cache?: "hit" | "miss" | undefined;
}
