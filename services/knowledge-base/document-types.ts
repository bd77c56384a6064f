// The kinds of document a collection holds, and how an uploaded file's kind is told. Its own module:
// extracting text (extract.ts) and uploading (upload.ts) both need it, and upload imports extract.

export type DocumentType = "text/plain" | "text/markdown" | "text/html" | "application/pdf";

const byMime: Record<string, DocumentType> = {
  "text/plain": "text/plain",
  "text/markdown": "text/markdown",
  "text/x-markdown": "text/markdown",
  "text/html": "text/html",
  "application/pdf": "application/pdf",
};
const byExtension: Record<string, DocumentType> = {
  txt: "text/plain",
  text: "text/plain",
  md: "text/markdown",
  markdown: "text/markdown",
  html: "text/html",
  htm: "text/html",
  pdf: "application/pdf",
};

/** The type of a file from its declared media type, or from its extension when that says nothing. */
export function documentTypeOf(name: string, declared: string): DocumentType | undefined {
  const mime = declared.split(";")[0]?.trim().toLowerCase() ?? "";
  if (byMime[mime]) return byMime[mime];
  if (mime !== "" && mime !== "application/octet-stream") return undefined;
  const extension = name.toLowerCase().split(".").pop() ?? "";
  return name.includes(".") ? byExtension[extension] : undefined;
}
