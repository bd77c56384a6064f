// The platform's guides (docs/*.md) as HTML inside the dashboard, so that a page can link to the
// section that explains it (the providers page to docs/providers.md#nosana). micromark renders
// CommonMark and escapes any HTML in the source; headings get GitHub's anchors, so a link that
// works on the repository works here too.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { micromark } from "micromark";

export const docsDir = join(import.meta.dir, "..", "..", "..", "docs");

/** The guides that exist: only these names are ever read (no path from the URL reaches the disk). */
export const docNames = (): string[] => readdirSync(docsDir).filter((f) => /^[a-z0-9-]+\.md$/.test(f));

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/&[a-z]+;|&#\d+;/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** The anchors of a guide's headings, as `renderDoc` sets them (repeats get -1, -2 as on GitHub). */
export function anchorsOf(markdown: string): string[] {
  return [...renderDoc(markdown).matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1] ?? "");
}

export function renderDoc(markdown: string): string {
  const seen = new Map<string, number>();
  return (
    micromark(markdown)
      // A code block scrolls sideways on a phone: focusable, so a keyboard can scroll it too.
      .replaceAll("<pre>", '<pre tabindex="0">')
      .replace(/<h([1-6])>(.*?)<\/h\1>/g, (_, level: string, inner: string) => {
        const base = slugOf(inner);
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        return `<h${level} id="${n === 0 ? base : `${base}-${n}`}">${inner}</h${level}>`;
      })
  );
}

export const readDoc = (name: string): string => readFileSync(join(docsDir, name), "utf8");
