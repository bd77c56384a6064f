// Claude Code (@anthropic-ai/claude-code, its CLI in print mode) against a self-hosted llama.cpp
// deployment through the gateway's Messages API: ANTHROPIC_BASE_URL is the gateway, the key a platform
// API key, the model the deployment's name. Claude Code sends a long system prompt and a score of tools
// (about 100 KB), streamed, with thinking, context management and beta headers: the tiny model's
// words are noise, the exchange must complete and the CLI exit 0. All of its tools are sent: their
// input schemas' keywords (propertyNames, bounds, formats) are enforced or checked (json-schema.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

// Claude Code's first turn is about 73,000 tokens of the tiny model's small vocabulary: a context
// that holds it and the answer.
const contextSize = 131_072;

let tiny: TinyDeployment;
let home: string;

beforeAll(async () => {
  tiny = await startTinyDeployment("tiny-coder", {
    // The smallest shape the tiny model takes: attention over 73,000 tokens costs what its width costs.
    gguf: {
      contextLength: contextSize,
      embeddingLength: 16,
      headCount: 1,
      headCountKv: 1,
      blockCount: 1,
      feedForwardLength: 32,
    },
    contextSize,
  });
  home = mkdtempSync(join(tmpdir(), "claude-code-home-"));
}, 120_000);
afterAll(async () => {
  await tiny.close();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

const cli = join(import.meta.dir, "../node_modules/@anthropic-ai/claude-code/cli.js");

async function claude(args: string[]) {
  const started = performance.now();
  const child = Bun.spawn(["node", cli, ...args], {
    cwd: home,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      ANTHROPIC_BASE_URL: tiny.baseUrl.replace(/\/v1$/, ""),
      ANTHROPIC_API_KEY: tiny.apiKey,
      ANTHROPIC_MODEL: tiny.model,
      ANTHROPIC_SMALL_FAST_MODEL: tiny.model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      // No retries: a refused request shows at once instead of after Claude Code's backoff.
      CLAUDE_CODE_MAX_RETRIES: "0",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr, seconds: (performance.now() - started) / 1000 };
}

test("claude -p completes a turn against the deployment and exits 0", async () => {
  const run = await claude(["-p", "Say hello.", "--output-format", "json"]);
  console.log(`claude -p: one turn in ${run.seconds.toFixed(1)} s`);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  const result = JSON.parse(run.stdout) as {
    type: string;
    subtype: string;
    is_error: boolean;
    result: string;
    usage: { input_tokens: number; output_tokens: number };
  };
  expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false });
  expect(typeof result.result).toBe("string");
  // The whole first turn reached the model (system prompt and tools), as the gateway counted it.
  expect(result.usage.input_tokens).toBeGreaterThan(50_000);
  expect(result.usage.output_tokens).toBeGreaterThan(0);
}, 300_000);
