// What the worker needs to see of one generation's decode steps, which LlamaChat drives through
// `sequence.evaluate()`. For one generation the sequence's evaluate is swapped for evaluateWithMetadata(), which
// yields the same tokens (with the distribution each was drawn from, when logprobs are asked for), and:
// - the first call says how many prompt tokens the sequence already held: LlamaChat has just aligned the kept
//   tokens with the new prompt (erasing from the first difference) and hands only the rest to evaluate;
// - each step goes through the context's Lockstep, so concurrent streams decode in one batch (batching.ts);
// - each sampled token is reported (logprobs, and the UTF-8 guard's memory of the last token).
// The pool lends a sequence to one request at a time, so nothing else sees the swap.
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { Lockstep, Stream } from "./batching.ts";

export interface EvaluationTap {
  lockstep: Lockstep;
  /** Ask the sampler for the distribution of each token (costs a sort of the vocabulary per token). */
  probabilities: boolean;
  /** The first evaluation of the generation: `kept` tokens of the prompt stayed, `evaluated` are decoded now. */
  onFirstEvaluation(kept: number, evaluated: number): void;
  onToken?: ((token: Token, probabilities: Map<Token, number> | undefined) => void) | undefined;
}

/**
 * Swaps `sequence.evaluate` until the returned function restores it (and takes out of the lockstep any
 * evaluation LlamaChat left without closing, so that the other streams never wait for it).
 */
export function tapEvaluation(sequence: LlamaContextSequence, tap: EvaluationTap): () => void {
  const original = sequence.evaluate;
  const open = new Set<Stream>();
  let first = true;
  const patched: LlamaContextSequence["evaluate"] = async function* (tokens, options) {
    if (first) tap.onFirstEvaluation(sequence.nextTokenIndex, tokens.length);
    first = false;
    const iterator = sequence.evaluateWithMetadata(tokens, { probabilities: tap.probabilities }, options);
    const stream = tap.lockstep.join();
    open.add(stream);
    let next: Token | Token[] | undefined;
    let size = tokens.length;
    try {
      while (true) {
        await tap.lockstep.step(stream, size);
        const step = await iterator.next(next);
        tap.lockstep.handling(stream);
        if (step.done) return;
        const { token } = step.value;
        tap.onToken?.(
          token,
          "probabilities" in step.value ? (step.value.probabilities as Map<Token, number>) : undefined,
        );
        // LlamaChat hands back a replacement token (or nothing) through next(), as evaluate() allows.
        next = (yield token) as Token | Token[] | undefined;
        size = Array.isArray(next) ? next.length : 1;
      }
    } finally {
      open.delete(stream);
      tap.lockstep.leave(stream);
      await iterator.return();
    }
  };
  sequence.evaluate = patched;
  return () => {
    sequence.evaluate = original;
    for (const stream of open) tap.lockstep.leave(stream);
    open.clear();
  };
}
