// The text of a document as retrieval reads it. Markdown and plain text are already that; HTML loses
// its markup, keeps its headings as Markdown headings (so chunks carry their heading path) and drops
// what is never prose (scripts, styles, navigation).
import { compile, type FormatCallback } from "html-to-text";
import { extractText, getDocumentProxy } from "unpdf";
import type { DocumentType } from "./document-types.ts";

// html-to-text (on htmlparser2) reads the markup: attribute values stay out of the text, entities are
// decoded, scripts and styles are never text. Headings come out as Markdown headings, which the chunker
// turns into heading paths; navigation, images and link targets are left out.
const markdownHeading =
  (depth: number): FormatCallback =>
  (element, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: 2 });
    builder.addLiteral(`${headingMark.repeat(depth)} `);
    walk(element.children, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  };

const headingDepths = [1, 2, 3, 4, 5, 6];
// Our headings are marked with a private-use character while the text is built; a line of the page's own
// text that would read as a Markdown heading ("# 1 priority", a comment in a <pre>) is escaped, then the
// marks become "#".
const headingMark = "\uE000";

const toText = compile({
  wordwrap: false,
  formatters: Object.fromEntries(headingDepths.map((d) => [`h${d}`, markdownHeading(d)])),
  selectors: [
    ...headingDepths.map((d) => ({ selector: `h${d}`, format: `h${d}` })),
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    ...["nav", "noscript", "template", "svg", "button", "select"].map((selector) => ({
      selector,
      format: "skip",
    })),
    { selector: "ul", options: { itemPrefix: " - " } },
    { selector: "table", format: "dataTable", options: { uppercaseHeaderCells: false } },
  ],
});

export function htmlToText(html: string): string {
  return toText(html)
    .replace(/^(#{1,6})(?=[ \t]|$)/gm, "\\$1")
    .replace(/\uE000+/g, (marks) => "#".repeat(marks.length))
    .replace(/\u00a0/g, " ")
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
