// Concurrent streams decode in shared batches: one llama.cpp decode for one token of every stream. Two things
// kept node-llama-cpp 3.22.1 from doing so (4 streams gave 1.2x one stream's tokens/s, llama-server 2.2x):
//
// 1. Order. node-llama-cpp keeps one KV cache stream per sequence (`kv_unified = false`), and llama.cpp then cuts a
//    batch into micro-batches whose sequence ids are consecutive and increasing (llama_batch_allocr::split_equal
//    with `sequential`). node-llama-cpp adds queued decodes in arrival order, so a batch [2, 0, 3, 1] ran as
//    three or four decodes of one token each: a batch of four cost four times one. `bySequenceId` orders each
//    batch by sequence id, which makes it one decode.
// 2. Phase. Each sequence samples its token on its own (an asynchronous native call) and goes back through
//    LlamaChat before it queues the next one, while the context's batch loop takes whatever is queued the moment
//    the previous decode ends. The first sequence back is decoded alone, the others queue during its decode and
//    go next: two streams alternated for ever (one token a decode), four mostly split 3 + 1. `Lockstep` holds a
//    sequence's next step until every other stream that is between steps has asked for its own, then lets them
//    queue together, one macrotask later (after the batch loop has looked at its queue and let go).
import type {
  BatchItem,
  CustomBatchingPrioritizationStrategy,
  LlamaContext,
  PrioritizedBatchItem,
} from "node-llama-cpp";

/** Batches formed and the sequences' items in them: their ratio is how many streams one decode served. */
export interface BatchStats {
  batches: number;
  items: number;
}

/**
 * A batch prioritization strategy: every queued item gets its fair share of the batch (leftover room goes to
 * the longest, in order: a new prompt fills what single-token steps leave), ordered by sequence id.
 * `context` is read when a batch is formed (the strategy is given before the context exists).
 */
export function bySequenceId(
  context: () => LlamaContext | object | undefined,
  stats: BatchStats = { batches: 0, items: 0 },
): CustomBatchingPrioritizationStrategy {
  return ({ items, size }) => {
    stats.batches += 1;
    stats.items += items.length;
    let left = size;
    const share = Math.max(1, Math.floor(size / Math.max(1, items.length)));
    const out: PrioritizedBatchItem[] = [];
    for (const item of items) {
      const amount = Math.min(item.tokens.length, share, left);
      if (amount <= 0) break;
      out.push({ item, processAmount: amount });
      left -= amount;
    }
    for (const chosen of out) {
      if (left === 0) break;
      const more = Math.min(chosen.item.tokens.length - chosen.processAmount, left);
      chosen.processAmount += more;
      left -= more;
    }
    const ids = sequenceIdsOf(context(), items);
    return ids ? out.sort((a, b) => (ids.get(a.item) ?? 0) - (ids.get(b.item) ?? 0)) : out;
  };
}

/**
 * Item → its sequence id. node-llama-cpp builds the items from its internal queue (`_queuedDecodes`), in order,
 * one per queued decode; the public item carries no sequence id. Read defensively: when the queue is not what
 * 3.22.1 has, the batch keeps node-llama-cpp's order (slower, never wrong).
 */
function sequenceIdsOf(
  context: LlamaContext | object | undefined,
  items: readonly BatchItem[],
): Map<BatchItem, number> | undefined {
  const queue: unknown = context ? Reflect.get(context, "_queuedDecodes") : undefined;
  if (!Array.isArray(queue) || queue.length !== items.length) return undefined;
  const ids = new Map<BatchItem, number>();
  for (const [index, item] of items.entries()) {
    const decode: unknown = queue[index];
    const id: unknown = typeof decode === "object" && decode ? Reflect.get(decode, "sequenceId") : undefined;
    const tokens: unknown = typeof decode === "object" && decode ? Reflect.get(decode, "tokens") : undefined;
    if (typeof id !== "number" || tokens !== item.tokens) return undefined;
    ids.set(item, id);
  }
  return ids;
}

/** Where a stream is between its decode steps. */
type Phase =
  /** A decode of one token is queued or running: it comes back with a token soon. */
  | "decoding"
  /** A decode of many tokens (a prompt) is queued or running: it may take long, nobody waits for it. */
  | "prefilling"
  /** It holds a token that LlamaChat is handling: its next step is coming. */
  | "handling"
  /** It asked for its next step and waits for the others. */
  | "waiting";

export interface Stream {
  phase: Phase;
}

/** How long a stream waits for the others at most: a stream that is slow to come back must not stall the rest. */
const MAX_WAIT_MS = 50;

/**
 * Keeps the streams of one context in step: a stream's next decode waits until no other stream is handling a
 * token or decoding one (they will ask for theirs soon); then all that wait go at once.
 */
export class Lockstep {
  private readonly streams = new Set<Stream>();
  private waiting: (() => void)[] = [];
  private releasing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Single-token decode steps asked for, the groups the lockstep released them in, and the releases forced by
   * MAX_WAIT_MS (a stream slow to come back): for tests and the bench.
   */
  readonly stats = { steps: 0, releases: 0, timeouts: 0 };

  join(): Stream {
    const stream: Stream = { phase: "handling" };
    this.streams.add(stream);
    return stream;
  }

  leave(stream: Stream): void {
    this.streams.delete(stream);
    this.maybeRelease();
  }

  /** Resolves when `stream` may queue its next decode of `tokens` tokens. */
  async step(stream: Stream, tokens: number): Promise<void> {
    if (tokens > 1) {
      // A prompt goes at once: it is long anyway, and the others join its batches as they come.
      stream.phase = "prefilling";
      return;
    }
    this.stats.steps += 1;
    if (this.streams.size === 1 && this.waiting.length === 0) {
      // Alone: nobody to wait for, and no macrotask to pay per token.
      stream.phase = "decoding";
      return;
    }
    stream.phase = "waiting";
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.maybeRelease();
    });
    stream.phase = "decoding";
  }

  /** The stream got its token back. */
  handling(stream: Stream): void {
    stream.phase = "handling";
  }

  private maybeRelease(): void {
    if (this.releasing || this.waiting.length === 0) return;
    for (const stream of this.streams)
      if (stream.phase === "handling" || stream.phase === "decoding") {
        this.timer ??= setTimeout(() => {
          this.stats.timeouts += 1;
          this.release();
        }, MAX_WAIT_MS);
        return;
      }
    this.release();
  }

  private release(): void {
    if (this.releasing) return;
    this.releasing = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    // One macrotask later: the context's batch loop, which takes whatever is queued when a decode ends, has
    // looked at its queue by then; the released streams then queue together and form one batch.
    setImmediate(() => {
      this.releasing = false;
      const go = this.waiting;
      this.waiting = [];
      if (go.length > 0) this.stats.releases += 1;
      for (const resolve of go) resolve();
      this.maybeRelease();
    });
  }
}
