// The three gateways' OpenAPI documents, as GET /openapi/json serves them, pass Redocly's and
// Spectral's linters with no error (warnings allowed), with the rulesets in the repository
// (redocly.yaml, .spectral.yaml). Whatever routes exist are linted: a new route is covered as soon as
// its file is there. The inference document is also read for what the linters cannot judge: every
// field of the chat request, the stream, and OpenAI's error body on every error status.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatewayHandler, startTestApp, type TestApp } from "../support/app.ts";

const root = join(import.meta.dir, "..", "..");
const gateways = ["inference", "filtration", "orchestration"] as const;
type Document = {
  openapi: string;
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
};
type Operation = {
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};

let t: TestApp;
let dir: string;
const documents = new Map<string, Document>();
const files: string[] = [];

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  for (const name of gateways) {
    const { handle } = await gatewayHandler(t.app, name);
    const response = await handle(new Request("http://localhost/openapi/json"));
    expect(response.status).toBe(200);
    const document = (await response.json()) as Document;
    documents.set(name, document);
    const file = join(dir, `${name}.json`);
    await Bun.write(file, JSON.stringify(document, null, 1));
    files.push(file);
  }
}, 60_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** Problem lines of severity error: Redocly's stylish `  12:3  error  rule …`, Spectral's text `file:12:3 error rule …`. */
const errorLines = (output: string) =>
  output
    .split("\n")
    .filter((line) => /^\s*\d+:\d+\s+error\s/.test(line) || /:\d+:\d+ error /.test(line))
    .join("\n");

/** Runs a linter's CLI from node_modules/.bin on the three documents; fails on any error it reports. */
async function expectNoErrors(cli: string, args: string[]): Promise<void> {
  const child = Bun.spawn([join(root, "node_modules/.bin", cli), "lint", ...args, ...files], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const output = `${stdout}\n${stderr}`;
  expect(errorLines(output), output).toBe("");
  expect(code, output).toBe(0);
}

test("Redocly: no errors in any gateway's document", async () => {
  await expectNoErrors("redocly", ["--config", "redocly.yaml", "--format", "stylish"]);
}, 60_000);

test("Spectral (spectral:oas): no errors in any gateway's document", async () => {
  await expectNoErrors("spectral", [
    "--ruleset",
    ".spectral.yaml",
    "--fail-severity",
    "error",
    "--format",
    "text",
  ]);
}, 60_000);

describe("the inference gateway's document", () => {
  const inference = () => documents.get("inference") as Document;

  test("OpenAPI 3.1 with a server, no nullable, no integer documented as a string", () => {
    for (const [name, document] of documents) {
      expect(document.openapi, name).toStartWith("3.1");
      expect(document.servers?.length, name).toBeGreaterThan(0);
      const text = JSON.stringify(document);
      expect(text, name).not.toContain('"nullable"');
      expect(text, name).not.toContain('"format":"integer"');
    }
  });

  test("the chat request lists the OpenAI fields the gateway accepts", () => {
    const operation = inference().paths["/v1/chat/completions"]?.post as Operation;
    const properties = Object.keys(
      operation.requestBody?.content["application/json"]?.schema.properties ?? {},
    );
    for (const field of [
      "model",
      "messages",
      "stream",
      "stream_options",
      "tools",
      "tool_choice",
      "parallel_tool_calls",
      "response_format",
      "logprobs",
      "top_logprobs",
      "logit_bias",
      "seed",
      "user",
      "max_tokens",
      "max_completion_tokens",
    ])
      expect(properties).toContain(field);
    expect(Object.keys(operation.requestBody?.content ?? {})).toEqual(["application/json"]);
  });

  test("chat answers JSON or a text/event-stream; every error status carries OpenAI's error body", () => {
    const operation = inference().paths["/v1/chat/completions"]?.post as Operation;
    expect(Object.keys(operation.responses["200"]?.content ?? {}).sort()).toEqual([
      "application/json",
      "text/event-stream",
    ]);
    for (const [path, methods] of Object.entries(inference().paths)) {
      if (!path.startsWith("/v1/")) continue;
      for (const [method, op] of Object.entries(methods)) {
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => s.startsWith("4")),
          `${method} ${path}`,
        ).toBe(true);
        for (const status of statuses.filter((s) => Number(s) >= 400)) {
          expect(
            op.responses[status]?.content?.["application/json"]?.schema?.$ref,
            `${method} ${path} ${status}`,
          ).toBe(
            // Anthropic's Messages API answers Anthropic's error body.
            path.startsWith("/v1/messages")
              ? "#/components/schemas/AnthropicError"
              : "#/components/schemas/OpenAIError",
          );
        }
      }
    }
    const chat = Object.keys(operation.responses);
    for (const status of ["400", "401", "403", "404", "429", "502", "503", "504"])
      expect(chat).toContain(status);
  });

  test("GET /v1/models/{model} takes the rest of the path as its parameter", () => {
    expect(Object.keys(inference().paths)).toContain("/v1/models/{model}");
  });
});
