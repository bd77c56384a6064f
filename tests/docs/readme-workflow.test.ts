// The README's walk-through, pasted as a newcomer would: its shell blocks run in bash, unchanged,
// against the platform started as `bun start` does, on a fresh data directory; then the guardrails and
// knowledge-base walk-through of docs/ continues from it. An edit that breaks a command fails here.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { until } from "../support/wait.ts";
import { blocksOf, root, stopEverything, workflowBlock } from "./blocks.ts";

const hasOathtool = Bun.which("oathtool") !== null;
const hasJq = ["jq", "curl", "setsid"].every((tool) => Bun.which(tool) !== null);

const password = "readme walk-through password";
const started: { platform: RunningPlatform; dataDir: string }[] = [];
/** Each paste's process group: what a paste leaves in the background (the README's stand-in for a hosted
 * API lives from one paste to the next, until the clean-up) is ended with it at the latest here. */
const pasteGroups: number[] = [];

afterAll(async () => {
  for (const group of pasteGroups) {
    try {
      process.kill(-group, "SIGTERM");
    } catch {
      // The group is gone already: nothing was left behind.
    }
  }
  // Five platforms: stopped together, with room for a loaded machine (the default 5 s was too short).
  await Promise.all(
    started.map(async ({ platform, dataDir }) => {
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }),
  );
}, 60_000);

/** A platform of its own on a fresh data directory, as `bun start` runs it. */
async function startPlatform() {
  const dataDir = mkdtempSync(join(tmpdir(), "llmp-test-readme-"));
  try {
    // 60 s: on a loaded two-core machine the first start (migrations) has taken over 30 s.
    const platform = await runPlatform({ DATA_DIR: dataDir, ADMIN_PASSWORD: password }, 60_000);
    started.push({ platform, dataDir });
    return { platform, dataDir };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Runs `script` in a new bash, as a user's shell with the README's variables: its exit code and output. */
async function pasteInto(
  { platform, dataDir }: { platform: RunningPlatform; dataDir: string },
  script: string,
  env: Record<string, string> = {},
) {
  // Whatever happens, no worker outlives the test: the platform leaves its workers running on purpose.
  // In a process group of its own (setsid), ended after the tests: see pasteGroups.
  const proc = Bun.spawn(["setsid", "bash", "-c", `trap '${stopEverything}' EXIT\n${script}`], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: password,
      F: `http://127.0.0.1:${platform.ports.filtration}`,
      O: `http://127.0.0.1:${platform.ports.orchestration}`,
      I: `http://127.0.0.1:${platform.ports.inference}`,
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  pasteGroups.push(proc.pid);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { out, err, code };
}

/** Runs `script` in bash against a platform of its own; it must succeed with nothing on stderr. */
async function runAsPasted(script: string): Promise<string> {
  const run = await pasteInto(await startPlatform(), `set -e\n${script}`);
  expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: "" });
  return run.out;
}

const walkThrough = () => workflowBlock("README.md", "readme-workflow");
/** The README's "Operate it" block (also run alone by docs-commands.test.ts). */
/** The README's <!-- docs-run --> blocks in order: guardrails on tool results, then "Operate it". */
const operate = () => {
  const blocks = blocksOf("README.md").filter((b) => b.marker.kind === "run");
  if (blocks.length === 0) throw new Error("README.md has no <!-- docs-run --> block");
  return blocks.map((block) => block.body).join("\n");
};
/** Stops what a walk-through started, so no worker outlives the test. */
const stopDeployment = `curl -sf $O/deployment/terminate -H "$AUTH" -H "$JSON" -d '{"deployment_id":"'"$DEP"'"}' >/dev/null
until curl -sf $O/deployment/status/$DEP -H "$AUTH" | jq -e '.status == "STOPPED"' >/dev/null; do sleep 1; done`;

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
    // Its last five lines: the walk-through's streamed gibberish above may hold line breaks of its own.
    expect(out.trimEnd().split("\n").slice(-5)).toEqual([
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
