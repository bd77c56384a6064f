// Chunking a document's text for retrieval (issue #8, step 4). A "token" here is a whitespace-separated
// word: no tokenizer of a model is assumed, since the embedding deployment is optional and may change.
// Markdown headings open sections; every chunk of a section starts with its heading path, so a passage
// retrieved alone still says what it is about. Consecutive chunks of a section share `overlap` tokens.

import { fromMarkdown } from "mdast-util-from-markdown";
import { toString as textOf } from "mdast-util-to-string";

export interface ChunkOptions {
  /** Tokens of body text per chunk (the heading path comes on top). */
  maxTokens: number;
  /** Tokens repeated from the end of the previous chunk of the same section. */
  overlap: number;
}

export interface Chunk {
  /** Heading path, outermost first ("" when the text comes before any heading). */
  heading: string;
  /** The heading path, a blank line, then the body tokens joined by spaces. */
  text: string;
  /** Number of body tokens. */
  tokens: number;
}

export const defaultChunkOptions: ChunkOptions = { maxTokens: 200, overlap: 40 };

/**
 * Chunks a statement when they are stored (chunk-store.ts): on PostgreSQL the loop only sends their
 * text; on the embedded PGlite the database itself runs on the loop (the rows' full-text vectors and
 * their index), so one statement must stay short.
 */
export const chunkBatchRows = 200;

interface Section {
  heading: string;
  words: string[];
}

/**
 * The text's sections under their heading paths. Headings are found by a CommonMark parser (mdast),
 * so a `# comment` inside fenced code, or a heading inside a quote, is body text; setext headings
 * (`Title` underlined with `===`) count. The body keeps the source's own words, markup included.
 */
// Only the block structure matters here (headings, fences, quotes): inline syntax is left unparsed, which
// halves the parser's time (about 1 s per MB of Markdown on a loaded 2-core machine) and keeps heading
// text as written, as before.
const blocksOnly = {
  disable: {
    null: [
      "attention",
      "autolink",
      "characterEscape",
      "characterReference",
      "codeText",
      "hardBreakEscape",
      "htmlText",
      "labelEnd",
      "labelStartImage",
      "labelStartLink",
    ],
  },
};

function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { heading: "", words: [] };
  for (const node of fromMarkdown(text, { extensions: [blocksOnly] }).children) {
    if (node.type === "heading") {
      if (current.words.length > 0) sections.push(current);
      path.length = node.depth - 1;
      path[node.depth - 1] = textOf(node).replace(/\s+/g, " ").trim();
      current = { heading: path.filter(Boolean).join(" > "), words: [] };
      continue;
    }
    const source = text.slice(node.position?.start.offset, node.position?.end.offset);
    for (const word of source.split(/\s+/)) if (word !== "") current.words.push(word);
  }
  if (current.words.length > 0) sections.push(current);
  return sections;
}

export function chunkText(text: string, options: ChunkOptions = defaultChunkOptions): Chunk[] {
  if (!(options.maxTokens > 0) || options.overlap < 0 || options.overlap >= options.maxTokens) {
    throw new RangeError("chunking needs maxTokens > 0 and 0 <= overlap < maxTokens");
  }
  const step = options.maxTokens - options.overlap;
  const chunks: Chunk[] = [];
  for (const section of sectionsOf(text)) {
    for (let start = 0; start < section.words.length; start += step) {
      const body = section.words.slice(start, start + options.maxTokens);
      const prefix = section.heading === "" ? "" : `${section.heading}\n\n`;
      chunks.push({ heading: section.heading, text: prefix + body.join(" "), tokens: body.length });
      if (start + options.maxTokens >= section.words.length) break;
    }
  }
  return chunks;
}
