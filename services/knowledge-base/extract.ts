// The text of a document as retrieval reads it. Markdown and plain text are already that; HTML loses
// its markup, keeps its headings as Markdown headings (so chunks carry their heading path) and drops
// what is never prose (scripts, styles, navigation).
import { extractText, getDocumentProxy } from "unpdf";
import type { DocumentType } from "./upload.ts";

const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return entities[name.toLowerCase()] ?? whole;
  });
}

export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, " ")
      .replace(/<(script|style|noscript|template|nav|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi, (_, level: string, inner: string) => {
        const title = inner
          .replace(/<[^>]*>/g, " ")
          .replace(/\s+/g, " ")
          .trim();
        return `\n\n${"#".repeat(Number(level))} ${title}\n\n`;
      })
      .replace(/<(br|\/p|\/div|\/li|\/tr|\/section|\/article|\/pre|\/blockquote)\b[^>]*>/gi, "\n")
      .replace(/<[^>]*>/g, " "),
  )
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/\n /g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

export const textForRetrieval = (content: string, type: DocumentType | string): string =>
  type === "text/html" ? htmlToText(content) : content;

/** The text of a PDF, or undefined when it cannot be parsed (damaged, encrypted, not a PDF). */
export async function pdfToText(bytes: Uint8Array): Promise<string | undefined> {
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      const { text } = await extractText(pdf, { mergePages: true });
      return text;
    } finally {
      await pdf.loadingTask.destroy();
    }
  } catch {
    return undefined;
  }
}
