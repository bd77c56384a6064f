// Walk-throughs of docs/ pasted as a newcomer would (tests/docs/paste.ts): a deployment's life in
// docs/getting-started.md after the README's walk-through, and two-factor sign-in in docs/authentication.md.
import { afterAll, expect, test } from "bun:test";
import { workflowBlock } from "./blocks.ts";
import { cleanUpPastes, hasJq, hasOathtool, runAsPasted, walkThrough } from "./paste.ts";

afterAll(cleanUpPastes, 60_000);

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
