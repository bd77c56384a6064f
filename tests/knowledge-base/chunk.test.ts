import { describe, expect, test } from "bun:test";
import { chunkText } from "#services/knowledge-base/chunk.ts";

const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");

describe("chunkText", () => {
  test("splits a long section into chunks of maxTokens sharing `overlap` tokens", () => {
    const chunks = chunkText(words("w", 25), { maxTokens: 10, overlap: 3 });
    expect(chunks.map((c) => c.tokens)).toEqual([10, 10, 10, 4]);
    expect(chunks[0]?.text.split(" ").slice(-3)).toEqual(["w7", "w8", "w9"]);
    expect(chunks[1]?.text.split(" ").slice(0, 3)).toEqual(["w7", "w8", "w9"]);
    expect(chunks[3]?.text === "w21 w22 w23 w24").toBe(true);
  });

  test("keeps each chunk with its heading path and never mixes sections", () => {
    const text = `intro text\n# Install\n${words("a", 12)}\n## Debian\n${words("b", 4)}\n# Usage\nrun it`;
    const chunks = chunkText(text, { maxTokens: 8, overlap: 2 });
    expect(chunks.map((c) => c.heading)).toEqual(["", "Install", "Install", "Install > Debian", "Usage"]);
    expect(chunks[1]?.text.startsWith("Install\n\na0 ")).toBe(true);
    expect(chunks[2]?.text).toBe("Install\n\na6 a7 a8 a9 a10 a11");
    expect(chunks[3]?.text).toBe("Install > Debian\n\nb0 b1 b2 b3");
    expect(chunks[4]?.text).toBe("Usage\n\nrun it");
  });

  test("a `# comment` inside fenced code is body text, not a heading; setext headings count", () => {
    const text =
      "# Deploy\nRun this:\n```sh\n# install the worker\nbun install\n```\n~~~\n## not either\n~~~\nSetup *fast*\n===\ndone";
    const chunks = chunkText(text, { maxTokens: 50, overlap: 0 });
    expect(chunks.map((c) => c.heading)).toEqual(["Deploy", "Setup *fast*"]);
    expect(chunks[0]?.text).toBe(
      "Deploy\n\nRun this: ```sh # install the worker bun install ``` ~~~ ## not either ~~~",
    );
    expect(chunks[1]?.text).toBe("Setup *fast*\n\ndone");
  });

  test("an empty text has no chunks; bad options are refused", () => {
    expect(chunkText("  \n\n ")).toEqual([]);
    expect(() => chunkText("x", { maxTokens: 4, overlap: 4 })).toThrow(RangeError);
  });
});
