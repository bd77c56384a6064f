// The README's walk-through, pasted as a newcomer would: its shell blocks run in bash, unchanged,
// against the platform started as `bun start` does, on a fresh data directory; then the guardrails and
// knowledge-base walk-through of docs/ continues from it. An edit that breaks a command fails here.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { root, stopEverything, workflowBlock } from "./blocks.ts";

const hasOathtool = Bun.which("oathtool") !== null;
const hasJq = Bun.which("jq") !== null && Bun.which("curl") !== null;

const password = "readme walk-through password";
const started: { platform: RunningPlatform; dataDir: string }[] = [];

afterAll(async () => {
  for (const { platform, dataDir } of started) {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Runs `script` in bash against a platform of its own, as a user's shell with the README's variables. */
async function runAsPasted(script: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "llmp-test-readme-"));
  const platform = await runPlatform({ DATA_DIR: dataDir, ADMIN_PASSWORD: password });
  started.push({ platform, dataDir });
  // Whatever happens, no worker outlives the test: the platform leaves its workers running on purpose.
  const proc = Bun.spawn(["bash", "-c", `trap '${stopEverything}' EXIT\nset -e\n${script}`], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: password,
      F: `http://127.0.0.1:${platform.ports.filtration}`,
      O: `http://127.0.0.1:${platform.ports.orchestration}`,
      I: `http://127.0.0.1:${platform.ports.inference}`,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  return out;
}

const walkThrough = () => workflowBlock("README.md", "readme-workflow");
/** Stops what a walk-through started, so no worker outlives the test. */
const stopDeployment = `curl -sf $O/deployment/terminate -H "$AUTH" -H "$JSON" -d '{"deployment_id":"'"$DEP"'"}' >/dev/null
until curl -sf $O/deployment/status/$DEP -H "$AUTH" | jq -e '.status == "STOPPED"' >/dev/null; do sleep 1; done`;

test.skipIf(!hasJq)(
  "the walk-through pastes and runs: tokens streamed and not, then cleaned up",
  async () => {
    const out = await runAsPasted(
      `${walkThrough()}\n${workflowBlock("README.md", "readme-workflow: clients")}\n${workflowBlock("README.md", "readme-workflow: then")}`,
    );
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toBe('{"model_name":"tiny","model_version":"1"}');
    const answer = JSON.parse(lines[1] as string);
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);
    // The tiny model's text is gibberish but printable: no control characters, valid UTF-8.
    expect(answer.content).toMatch(/^[\x20-\x7e\n]+$/);
    // The streamed text runs until the tools' answer (it may hold line breaks of its own).
    const tools = lines.findIndex((line) => line.startsWith('{"object":"chat.completion"'));
    expect(tools).toBeGreaterThan(2);
    expect(lines.slice(2, tools).join("\n")).toMatch(/^[\x20-\x7e\n]+$/);
    // Tools, structured outputs and the Responses API on the tiny model.
    // tool_choice "auto" with three tools: a 200 whose prompt is longer than the 512 tokens the model once had.
    const auto = JSON.parse(lines[tools] as string) as { prompt_tokens: number };
    expect(auto.prompt_tokens).toBeGreaterThan(512);
    expect(lines.slice(tools + 1, tools + 4)).toEqual([
      '["answer"]',
      '{"object":"response","output":["message"],"stored":true}',
      // Anthropic's Messages API (the tiny model may end its turn or reach max_tokens: not shown).
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
    expect(out).toContain('"deleted":true');
    expect(lines.at(-1)).toBe('{"pool_name":"this-machine","state":"Deleting"}');
  },
  120_000,
);

test.skipIf(!hasJq)(
  "the guardrails and knowledge-base walk-through of docs/ continues from it, with the GloVe step",
  async () => {
    const guardrails = workflowBlock("docs/guardrails-and-knowledge-base.md", "docs-workflow: guardrails");
    // The doc writes leave.md where the user stands: here, the platform's data directory.
    const glove = workflowBlock("docs/guardrails-and-knowledge-base.md", "docs-workflow: glove");
    const stopGlove = stopDeployment.replaceAll("$DEP", "$GLOVE");
    const out = await runAsPasted(
      `${walkThrough()}\ncd "$DATA_DIR"\n${guardrails}\ncd "${root}"\n${glove}\n${stopGlove}\n${stopDeployment}`,
    );
    // The walk-through's streamed gibberish may hold line breaks of its own: start at this doc's first line.
    const all = out.trimEnd().split("\n");
    const lines = all.slice(all.indexOf('{"stored":1,"documents":["leave.md"]}'));
    expect(lines[0]).toBe('{"stored":1,"documents":["leave.md"]}');
    expect(lines.slice(1, 3)).toEqual(['"rag"', '"guardrails"']);
    expect(JSON.parse(lines[3] as string)).toEqual({
      user: "I am [EMAIL]. How many weeks of parental leave do I get?",
      passages: ["leave.md", "leave.md"],
    });
    expect(JSON.parse(lines[4] as string).completion_tokens).toBeGreaterThan(0);
    expect(JSON.parse(lines[5] as string)).toMatchObject({
      code: "content_policy_violation",
      param: "messages",
    });
    expect(lines.slice(6).map((l) => JSON.parse(l))).toEqual([
      { status: 400, input: "block", retrieval: null },
      { status: 200, input: "redact", retrieval: "full_text" },
      // The GloVe step: vector search finds the passage that full text alone misses.
      "rag",
      { mode: "hybrid", passages: ["leave.md", "leave.md"], embedding_deployment: "glove" },
    ]);
  },
  180_000,
);

test.skipIf(!hasJq)(
  "a deployment's life in docs/getting-started.md: terminate, start, a refused delete, delete",
  async () => {
    const lifecycle = workflowBlock("docs/getting-started.md", "docs-workflow: lifecycle");
    const out = await runAsPasted(`${walkThrough()}\n${lifecycle}`);
    expect(out.trimEnd().split("\n").slice(3)).toEqual([
      "STOPPING",
      "DEPLOYING",
      "conflict",
      '{"deleted":true}',
      "not_found",
    ]);
  },
  120_000,
);

test.skipIf(!hasJq || !hasOathtool)(
  "two-factor sign-in in docs/authentication.md, with oathtool's codes",
  async () => {
    const totp = workflowBlock("docs/authentication.md", "docs-workflow: totp");
    const out = await runAsPasted(totp);
    expect(out.trimEnd().split("\n")).toEqual([
      '{"totp_enabled":true}',
      '"totp_required"',
      '{"email":"admin@example.com","token_type":"bearer"}',
    ]);
  },
  120_000,
);
