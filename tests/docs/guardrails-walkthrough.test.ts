// The guardrails and knowledge-base walk-through of docs/ (docs/guardrails-and-knowledge-base.md), with
// its GloVe step, pasted after the README's walk-through it continues from (tests/docs/paste.ts).
import { afterAll, expect, test } from "bun:test";
import { root, workflowBlock } from "./blocks.ts";
import { cleanUpPastes, hasJq, runAsPasted, stopDeployment, walkThrough } from "./paste.ts";

afterAll(cleanUpPastes, 60_000);

test.skipIf(!hasJq)(
  "the guardrails and knowledge-base walk-through of docs/ continues from the README's, with the GloVe step",
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
