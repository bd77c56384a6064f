// Chunking a document's text for retrieval (issue #8, step 4). A "token" here is a whitespace-separated
// word: no tokenizer of a model is assumed, since the embedding deployment is optional and may change.
// Markdown headings open sections; every chunk of a section starts with its heading path, so a passage
// retrieved alone still says what it is about. Consecutive chunks of a section share `overlap` tokens.

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

interface Section {
  heading: string;
  words: string[];
}

const headingLine = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { heading: "", words: [] };
  for (const line of text.split(/\r?\n/)) {
    const match = headingLine.exec(line);
    if (match?.[1] && match[2]) {
      if (current.words.length > 0) sections.push(current);
      path.length = match[1].length - 1;
      path[match[1].length - 1] = match[2];
      current = { heading: path.filter(Boolean).join(" > "), words: [] };
      continue;
    }
    for (const word of line.split(/\s+/)) if (word !== "") current.words.push(word);
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
