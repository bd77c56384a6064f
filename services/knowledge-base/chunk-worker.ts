// The worker side of chunk-store.ts's chunking: a document's retrieval text and its chunks, away from
// the request loop, handed over as JSON texts of rows (chunk-store.ts ChunkBatches says why).
import { serveJobs } from "../workers/pool.ts";
import { chunkBatchRows, chunkText } from "./chunk.ts";
import type { ChunkBatches } from "./chunk-store.ts";
import { textForRetrieval } from "./extract.ts";

serveJobs((job: { text: string; type: string }): ChunkBatches => {
  const chunks = chunkText(textForRetrieval(job.text, job.type));
  const batches: string[] = [];
  for (let i = 0; i < chunks.length; i += chunkBatchRows) {
    const rows = chunks
      .slice(i, i + chunkBatchRows)
      .map((c, j) => ({ o: i + j, h: c.heading, t: c.text, n: c.tokens }));
    batches.push(JSON.stringify(rows));
  }
  return { count: chunks.length, batches };
});
