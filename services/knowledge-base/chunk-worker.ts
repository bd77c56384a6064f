// The worker side of chunk-store.ts's chunking: a document's retrieval text and its chunks, away from
// the request loop.
import { serveJobs } from "../workers/pool.ts";
import { type Chunk, chunkText } from "./chunk.ts";
import { textForRetrieval } from "./extract.ts";

serveJobs((job: { text: string; type: string }): Chunk[] => chunkText(textForRetrieval(job.text, job.type)));
