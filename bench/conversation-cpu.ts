// Issue #34's "scan what is new": what a conversation's tenth turn costs the gateway against its
// first. Part of `bun run bench gateway` (and alone: `bun run bench gateway --conversation-only`).
// Each conversation has its own system prompt (about 10 KB, as bench/prefix.ts's turn 1) and re-sends
// every earlier exchange, as chat clients do: turn 1 is about 10 KB, turn 10 about 15 KB of messages.
// The platform process's CPU (all its threads: a long text is scanned on a worker thread) is read
// from /proc around the turn-1 requests of a batch of conversations, then around their turn-10
// requests (turns 2-9 run between, unmeasured); µs a request over all batches. Twice: each
// conversation with its own system prompt, and all with the same one (an agent's instructions).

import { at } from "#scripts/checked.ts";
import { rng } from "#scripts/make-tiny-gguf.ts";

const words = (
  "river table green orange window garden music paper stone light morning letter number silver " +
  "market yellow forest engine bridge pocket summer winter coffee island planet circle shadow " +
  "blanket ladder harbor meadow lantern pencil rocket violin canvas marble thunder velvet"
).split(" ");

function wordsOf(random: () => number, chars: number): string {
  let text = "";
  while (text.length < chars) text += `${words[Math.floor(random() * words.length)]} `;
  return text.trim();
}

interface Conversation {
  system: string;
  users: string[];
  answers: string[];
}

export const conversationTurns = 10;

/** An agent's fixed instructions, the same in every conversation of the "shared" variant. */
const sharedSystem = `Shared instructions. ${wordsOf(rng(7), 10_000)}`;

function conversation(seed: number, shared: boolean): Conversation {
  const random = rng(seed);
  return {
    system: shared ? sharedSystem : `Conversation ${seed}. ${wordsOf(random, 10_000)}`,
    users: Array.from({ length: conversationTurns }, () => wordsOf(random, 270)),
    answers: Array.from({ length: conversationTurns }, () => wordsOf(random, 240)),
  };
}

function turnBody(model: string, c: Conversation, n: number): string {
  const messages = [{ role: "system", content: c.system }];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: at(c.users, i) });
    messages.push({ role: "assistant", content: at(c.answers, i) });
  }
  messages.push({ role: "user", content: at(c.users, n) });
  return JSON.stringify({ model, messages, max_tokens: 16 });
}

export interface ConversationCpu {
  /** Every conversation had the same system prompt (else each its own). */
  shared: boolean;
  /** µs of the platform process's CPU a request, over all batches. */
  turn1: number;
  turn10: number;
  /** The same, its main thread only. */
  turn1Main: number;
  turn10Main: number;
  requests: number;
}

/**
 * `batches` batches of `perBatch` conversations, `concurrency` requests at a time, through `url` with
 * `model` (a deployment with the lifecycle on). `cpuSeconds(pid, mainThread)` reads /proc.
 */
export async function conversationCpu(options: {
  url: string;
  headers: Record<string, string>;
  model: string;
  pid: number;
  cpuSeconds: (pid: number, mainThread?: boolean) => number;
  batches?: number;
  perBatch?: number;
  concurrency?: number;
  seed?: number;
  /** The same system prompt in every conversation (an agent's instructions), else each its own. */
  shared?: boolean;
}): Promise<ConversationCpu> {
  const shared = options.shared ?? false;
  const { url, headers, model, pid, cpuSeconds } = options;
  const batches = options.batches ?? 10;
  // The input scan cache holds 2,048 texts: a batch's 11 texts a conversation stay within it.
  const perBatch = options.perBatch ?? 100;
  const concurrency = options.concurrency ?? 4;
  let seed = options.seed ?? 1_000_000;
  const send = async (body: string) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    if (!res.ok) throw new Error(`conversation turn: HTTP ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  /** Every conversation's turn `n`, `concurrency` at a time; the bodies are built before measuring. */
  const turn = async (cs: Conversation[], n: number) => {
    const bodies = cs.map((c) => turnBody(model, c, n));
    const all = cpuSeconds(pid);
    const main = cpuSeconds(pid, true);
    const runner = async () => {
      for (let body = bodies.pop(); body !== undefined; body = bodies.pop()) await send(body);
    };
    await Promise.all(Array.from({ length: concurrency }, runner));
    return {
      all: ((cpuSeconds(pid) - all) * 1e6) / cs.length,
      main: ((cpuSeconds(pid, true) - main) * 1e6) / cs.length,
    };
  };
  // A warm-up batch (JIT, connections), not counted.
  const warm = Array.from({ length: 20 }, () => conversation(seed++, shared));
  for (let n = 0; n < conversationTurns; n++) await turn(warm, n);
  const first: { all: number; main: number }[] = [];
  const tenth: { all: number; main: number }[] = [];
  for (let b = 0; b < batches; b++) {
    const cs = Array.from({ length: perBatch }, () => conversation(seed++, shared));
    first.push(await turn(cs, 0));
    for (let n = 1; n < conversationTurns - 1; n++) await turn(cs, n);
    tenth.push(await turn(cs, conversationTurns - 1));
  }
  // Means over all batches: /proc counts in 10 ms ticks, which one batch's few hundred ms would blur.
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    shared,
    turn1: mean(first.map((x) => x.all)),
    turn10: mean(tenth.map((x) => x.all)),
    turn1Main: mean(first.map((x) => x.main)),
    turn10Main: mean(tenth.map((x) => x.main)),
    requests: batches * perBatch,
  };
}

export function conversationCpuLine(store: string, r: ConversationCpu): string {
  const ratio = r.turn10 / r.turn1;
  return (
    `  ${store}, lifecycle on, a 10-turn conversation (${r.shared ? "a 10 KB system prompt shared by all" : "its own 10 KB system prompt"}, ${r.requests} conversations): ` +
    `CPU turn 1 ${r.turn1.toFixed(0)} µs, turn 10 ${r.turn10.toFixed(0)} µs a request (main thread ` +
    `${r.turn1Main.toFixed(0)} / ${r.turn10Main.toFixed(0)}): turn 10 = ${ratio.toFixed(2)}× turn 1 ` +
    `(target ≤ 1.2×: ${ratio <= 1.2 ? "PASS" : "FAIL"})`
  );
}
