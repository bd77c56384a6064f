// The SSE relay on the streaming hot path: a long OpenAI-style stream (one token a chunk) relayed
// through relaySse and read to the end, in network-sized pieces. Reports CPU ns per event (median of runs).
// `bun run bench sse-relay [events] [path of another relay module to compare]`.
import { resolve } from "node:path";
import { at } from "#scripts/checked.ts";

const events = Number(process.argv[2] ?? 20_000);
const modulePath = resolve(process.argv[3] ?? `${import.meta.dir}/../adapters/upstream/sse-relay.ts`);
// Another relay module (the argument) is taken to export the same function as this one.
const relayModule: typeof import("#adapters/upstream/sse-relay.ts") = await import(modulePath);
const { relaySse } = relayModule;

const encoder = new TextEncoder();
function streamText(n: number): string {
  let text = "";
  for (let i = 0; i < n; i++) {
    const chunk = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "tiny",
      choices: [{ index: 0, delta: { content: ` word${i}` }, finish_reason: null }],
    };
    text += `data: ${JSON.stringify(chunk)}\n\n`;
  }
  return `${text}data: [DONE]\n\n`;
}

/** The text cut into pieces of 1-3 events' worth, at arbitrary byte offsets (as TCP delivers it). */
function pieces(text: string): Uint8Array[] {
  const bytes = encoder.encode(text);
  const out: Uint8Array[] = [];
  let seed = 7;
  for (let at = 0; at < bytes.length; ) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const size = 60 + (seed % 300);
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}

const chunks = pieces(streamText(events));
async function once(): Promise<number> {
  let i = 0;
  const upstream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(at(chunks, i++));
      else controller.close();
    },
  });
  let content = 0;
  // CPU time of this process, not wall time: on a shared machine the wall clock measures the neighbours.
  const start = process.cpuUsage();
  const relayed = relaySse(upstream, { includeUsage: false, onEnd: (o) => (content = o.content.length) });
  const reader = relayed.getReader();
  while (!(await reader.read()).done) {}
  const used = process.cpuUsage(start);
  const ns = (used.user + used.system) * 1000;
  if (content === 0) throw new Error("the relay passed no content");
  return ns / events;
}

for (let i = 0; i < 3; i++) await once(); // warm-up
const runs: number[] = [];
for (let i = 0; i < 15; i++) runs.push(await once());
runs.sort((a, b) => a - b);
console.log(
  `${modulePath.split("/").slice(-3).join("/")}: ${events} events, median ${Math.round(at(runs, 7))} ns/event, ` +
    `min ${Math.round(at(runs, 0))}, max ${Math.round(at(runs, 14))}`,
);
