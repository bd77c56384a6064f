// A document's chunks: its retrieval text (HTML read by html-to-text) cut by chunkText, then written in
// batches small enough for one statement's parameters, inside the caller's transaction (the upload's).
// Reading and cutting run on a worker thread with a deadline (services/workers/pool.ts), before the
// transaction opens: a megabyte of Markdown with 60,000 headings takes the parser 10-30 s on a loaded
// 2-core machine, which held the request loop (and /health) that long; HTML nested 20,000 deep
// overflowed html-to-text's stack (a 500). Now the loop goes on, and such a document is a 400.
import type { Executor } from "#db/client.ts";
import { knowledgeChunks } from "#db/schema/index.ts";
import { AppError } from "../errors.ts";
import { DeadlineExceeded, WorkerPool } from "../workers/pool.ts";
import type { Chunk } from "./chunk.ts";

export interface ChunkSource {
  orgId: string;
  collectionId: string;
  documentId: string;
  chunks: Chunk[];
}

/** How long reading and cutting one upload's documents may take. */
export const CHUNK_DEADLINE_MS = 60_000;

// Small enough that building one statement (on the request loop) takes a few milliseconds.
const batchRows = 250;

// The Markdown parser and the HTML reader load in the worker, with the first upload (about 5 MB
// resident for a process that never indexes a document: docs/performance.md).
let pool: WorkerPool<{ text: string; type: string }, Chunk[]> | undefined;

/** The chunks of one document; 400 naming `field` when it cannot be read in time, or at all. */
export async function chunkDocument(text: string, type: string, field: string): Promise<Chunk[]> {
  pool ??= new WorkerPool(new URL("./chunk-worker.ts", import.meta.url));
  try {
    return await pool.run({ text, type }, CHUNK_DEADLINE_MS);
  } catch (error) {
    const message =
      error instanceof DeadlineExceeded
        ? `could not be read within ${CHUNK_DEADLINE_MS / 1000} s`
        : "could not be read (nested too deeply, or malformed)";
    throw new AppError("validation_error", `${field}: ${message}`, { fields: [{ field, message }] });
  }
}

export async function storeChunks(tx: Executor, documents: ChunkSource[]): Promise<number> {
  const rows = documents.flatMap((d) =>
    d.chunks.map((chunk, ordinal) => ({
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
