// A document's chunks: its retrieval text (HTML read by html-to-text) cut by chunkText, then written in
// batches small enough for one statement's parameters, inside the caller's transaction (the upload's).
// Reading and cutting run on a worker thread with a deadline (services/workers/pool.ts), before the
// transaction opens: a megabyte of Markdown with 60,000 headings takes the parser 10-30 s on a loaded
// 2-core machine, which held the request loop (and /health) that long; HTML nested 20,000 deep
// overflowed html-to-text's stack (a 500). Now the loop goes on, and such a document is a 400.
import { sql } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { knowledgeChunks } from "#db/schema/index.ts";
import { DeadlineExceeded, WorkerPool } from "../workers/pool.ts";

/**
 * A document's chunks as the worker hands them over: JSON texts of `{o, h, t, n}` rows (ordinal,
 * heading, text, tokens), `chunkBatchRows` (chunk.ts) to a text. The request loop neither builds nor clones 60,000
 * objects (a structured clone of the worker's answer, then a statement of 1,750 parameters per 250
 * rows, each held the loop: /health at 70-100 ms beside a 60,000-heading upload); it passes each text
 * to PostgreSQL, which reads it with jsonb_to_recordset.
 */
export interface ChunkBatches {
  count: number;
  batches: string[];
}

export interface ChunkSource {
  orgId: string;
  collectionId: string;
  documentId: string;
  chunks: ChunkBatches;
}

/** How long reading and cutting one upload's documents may take. */
export const CHUNK_DEADLINE_MS = 60_000;

// The Markdown parser and the HTML reader load in the worker, with the first upload (about 5 MB
// resident for a process that never indexes a document: docs/performance.md).
let pool: WorkerPool<{ text: string; type: string }, ChunkBatches> | undefined;

/**
 * The chunks of one document; 400 naming `field` when it cannot be read within `deadlineMs`, or at all.
 */
export async function chunkDocument(
  text: string,
  type: string,
  field: string,
  deadlineMs = CHUNK_DEADLINE_MS,
): Promise<ChunkBatches> {
  pool ??= new WorkerPool(new URL("./chunk-worker.ts", import.meta.url));
  try {
    return await pool.run({ text, type }, deadlineMs);
  } catch (error) {
    const message =
      error instanceof DeadlineExceeded
        ? `could not be read within ${deadlineMs / 1000} s`
        : "could not be read (nested too deeply, or malformed)";
    throw new AppError("validation_error", `${field}: ${message}`, { fields: [{ field, message }] });
  }
}

export async function storeChunks(tx: Executor, documents: ChunkSource[]): Promise<number> {
  let stored = 0;
  for (const d of documents) {
    for (const batch of d.chunks.batches) {
      await tx.execute(sql`
        insert into ${knowledgeChunks} (org_id, collection_id, document_id, ordinal, heading, text, tokens)
        select ${d.orgId}::uuid, ${d.collectionId}::uuid, ${d.documentId}::uuid, r.o, r.h, r.t, r.n
        from jsonb_to_recordset(${batch}::jsonb) as r(o integer, h text, t text, n integer)`);
      // Between statements the loop answers whatever waits (on PGlite the inserts themselves run on it).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    stored += d.chunks.count;
  }
  return stored;
}
