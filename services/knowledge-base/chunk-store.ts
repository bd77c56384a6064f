// Writing a document's chunks: its retrieval text cut by chunkText, in batches small enough for one
// statement's parameters, inside the caller's transaction (the upload's).
import type { Executor } from "#db/client.ts";
import { knowledgeChunks } from "#db/schema/index.ts";

export interface ChunkSource {
  orgId: string;
  collectionId: string;
  documentId: string;
  text: string;
  type: string;
}

const batchRows = 1000;

export async function storeChunks(tx: Executor, documents: ChunkSource[]): Promise<number> {
  // The Markdown parser and the HTML reader load with the first upload, not at every start (about
  // 5 MB resident for a process that never indexes a document: docs/performance.md).
  const [{ chunkText }, { textForRetrieval }] = await Promise.all([
    import("./chunk.ts"),
    import("./extract.ts"),
  ]);
  const rows = documents.flatMap((d) =>
    chunkText(textForRetrieval(d.text, d.type)).map((chunk, ordinal) => ({
      orgId: d.orgId,
      collectionId: d.collectionId,
      documentId: d.documentId,
      ordinal,
      heading: chunk.heading,
      text: chunk.text,
      tokens: chunk.tokens,
    })),
  );
  for (let i = 0; i < rows.length; i += batchRows) {
    await tx.insert(knowledgeChunks).values(rows.slice(i, i + batchRows));
  }
  return rows.length;
}
