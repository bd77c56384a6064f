// The README's walk-through, pasted as a newcomer would: its shell blocks run in bash, unchanged,
// against the platform started as `bun start` does, on a fresh data directory (tests/docs/paste.ts). An
// edit that breaks a command fails here. The docs' walk-throughs that continue from it:
// docs-walkthroughs.test.ts and guardrails-walkthrough.test.ts.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../support/wait.ts";
import { blocksOf, workflowBlock } from "./blocks.ts";
import { cleanUpPastes, hasJq, pasteInto, startPlatform, walkThrough } from "./paste.ts";

// The platforms stopped together, with room for a loaded machine (the default 5 s was too short).
afterAll(cleanUpPastes, 60_000);

/** The README's <!-- docs-run --> blocks in order: guardrails on tool results, then "Operate it". */
const operate = () => {
  const blocks = blocksOf("README.md").filter((b) => b.marker.kind === "run");
  if (blocks.length === 0) throw new Error("README.md has no <!-- docs-run --> block");
  return blocks.map((block) => block.body).join("\n");
};
/** The README top to bottom, with the getting-started blocks it points to; the clean-up when asked. */
const wholeReadme = (cleanUp: boolean) =>
  [
    walkThrough(),
    workflowBlock("docs/getting-started.md", "docs-workflow: clients"),
    workflowBlock("docs/getting-started.md", "docs-workflow: then"),
    workflowBlock("README.md", "readme-workflow: hosted"),
    operate(),
    ...(cleanUp ? [workflowBlock("README.md", "readme-workflow: clean up")] : []),
  ].join("\n");

/** What one paste of the whole README prints, checked by shape (the tiny model's text varies). */
function expectShapes(out: string, cleanUp: boolean) {
  const lines = out.trimEnd().split("\n");
  expect(lines[0]).toBe('{"model_name":"tiny-chat","status":"RUNNING","pool_name":"this-machine"}');
  const answer = JSON.parse(lines[1] as string);
  expect(answer.usage.completion_tokens).toBeGreaterThan(0);
  expect(answer.usage.completion_tokens).toBeLessThanOrEqual(12);
  // The tiny model's text is gibberish but printable: no control characters, valid UTF-8.
  expect(answer.content).toMatch(/^[\x20-\x7e\n]*$/);
  // The streamed text runs until the tools' answer (it may hold line breaks of its own).
  const tools = lines.findIndex((line) => line.startsWith('{"object":"chat.completion"'));
  expect(tools).toBeGreaterThan(2);
  expect(lines.slice(2, tools).join("\n")).toMatch(/^[\x20-\x7e\n]+$/);
  // tool_choice "auto" with three tools: a 200 whose prompt is longer than the 512 tokens the model once had.
  const auto = JSON.parse(lines[tools] as string) as { prompt_tokens: number };
  expect(auto.prompt_tokens).toBeGreaterThan(512);
  expect(lines.slice(tools + 1, tools + 4)).toEqual([
    '["answer"]',
    '{"object":"response","output":["message"],"stored":true}',
    '{"type":"message","role":"assistant"}',
  ]);
  expect(out).toContain('{"status":"RUNNING","replicas":2}');
  // Autoscaling: to zero when idle, back on the next request, each decision with its reason.
  expect(out).toContain('"min_replicas":0');
  expect(out).toMatch(/{"model":"tiny-chat","usage":{"prompt_tokens":\d+,"completion_tokens":[1-4],/);
  expect(out).toMatch(/scaled to zero: no requests for [\d.]+ s\nscaled up from 0 to 1: /);
  // A fallback answers for the stopped deployment, and says so.
  expect(out).toContain('{"fallbacks":["tiny-backup"]}');
  expect(out).toMatch(/^x-served-by: tiny-backup\r?$/im);
  expect(out).toContain('{"status":"STOPPING"}');
  // A hosted model beside tiny-chat behind the same key: its credential shown by name only, the
  // fallback to tiny-chat while the hosted API fails, then a cache miss and a hit (a new question
  // each paste, so the second paste misses first too).
  expect(out).toContain('["openai-main"]\n{"model":"tiny-chat"}\n{"model":"support-bot"}\n');
  expect(out).toMatch(/^x-served-by: tiny-chat\r?\nx-cache: miss\r?\nx-cache: hit\r?$/im);
  // A tool's result carrying an instruction for the model is refused by the indirect-injection guardrail.
  expect(out).toContain('"the request was blocked by the indirect_injection guardrail"\n');
  // "Operate it" prices the live deployment (a 404 here before: it ran after the deployment was deleted).
  expect(out).toContain('{"input_price_per_million":0.15}');
  if (cleanUp) {
    expect(out.match(/{"deleted":true}/g)?.length).toBe(3);
    expect(out).toContain('{"pool_name":"hosted","state":"Deleting"}');
    expect(lines.at(-1)).toBe('{"pool_name":"this-machine","state":"Deleting"}');
  } else {
    expect(lines.at(-1)).toMatch(/^\[.*\]$/); // the spend total's keys
  }
}
test.skipIf(!hasJq)(
  "the README pasted twice in a row, each time in a new shell: the same shapes, nothing made twice",
  async () => {
    const at = await startPlatform();
    const first = await pasteInto(at, wholeReadme(false));
    expect({ code: first.code, err: first.err }).toEqual({ code: 0, err: "" });
    expectShapes(first.out, false);
    // The stand-in for a hosted API outlives the first paste (the second reuses it); the clean-up ends it.
    const standIn = join(at.dataDir, "hosted-api.json");
    const { pid } = JSON.parse(readFileSync(standIn, "utf8")) as { pid: number };
    // The second paste reuses the pool, the model and both deployments, replaces the key, then cleans up.
    const second = await pasteInto(at, wholeReadme(true));
    expect({ code: second.code, err: second.err }).toEqual({ code: 0, err: "" });
    expectShapes(second.out, true);
    expect(existsSync(standIn)).toBe(false);
    const alive = () => {
      try {
        return process.kill(pid, 0);
      } catch {
        return false;
      }
    };
    // Not this process's child: its end is seen by asking.
    await until(() => !alive(), {
      what: `the stand-in (pid ${pid}) to end`,
      timeoutMs: 5_000,
      intervalMs: 100,
    });
    expect(alive()).toBe(false);
  },
  300_000,
);

test.skipIf(!hasJq)(
  "a block that meets an error stops there, with the platform's message and a non-zero exit",
  async () => {
    const at = await startPlatform();
    // A wrong password: the sign-in's 401 body is printed and nothing after it runs.
    const signIn = await pasteInto(at, walkThrough(), { ADMIN_PASSWORD: "not the password" });
    expect(signIn.code).not.toBe(0);
    expect(signIn.err).toContain('"code":"unauthenticated"');
    expect(signIn.out).toBe("");
    // A wrong API key in the second block: OpenAI's invalid_api_key, and the block goes no further.
    const clients = workflowBlock("docs/getting-started.md", "docs-workflow: clients");
    const wrongKey = await pasteInto(at, `${walkThrough()}\nKEY=sk-wrong\n${clients}`);
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.err).toContain('"code":"invalid_api_key"');
    expect(wrongKey.out).not.toContain('["answer"]');
  },
  180_000,
);
