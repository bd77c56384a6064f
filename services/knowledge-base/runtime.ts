// What the knowledge base keeps for the life of its process: the vector ranking (which engine, the
// memory engine's matrices), the background embedding runs and the balancer over embedding replicas. Built once by the composition root
// (server/compose.ts) and carried on the AppContext, so several platforms in one process (the test
// suite) each have their own.
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import type { Database } from "#db/client.ts";
import type { Logger } from "../context.ts";
import { CHUNK_DEADLINE_MS } from "./chunk-store.ts";
import { EmbeddingScheduler } from "./embedding-index.ts";
import { VectorSearch } from "./vector-search.ts";

// The knowledge runtime adds itself to what every service receives, as the orchestration and
// inference runtimes do, so that services/context.ts does not import it back.

/**
 * What a service that reaches the knowledge runtime receives beside the AppContext; carried by every
 * context the composition root builds (server/platform-context.ts).
 */
export interface WithKnowledge {
  /** The knowledge base's process-wide state (vector ranking, embedding runs). */
  readonly knowledge: KnowledgeRuntime;
}

export interface KnowledgeRuntime {
  vectors: VectorSearch;
  embedding: EmbeddingScheduler;
  /** Spreads questions and passages to embed over an embedding deployment's replicas. */
  balancer: InFlightBalancer;
  /**
   * How long reading and cutting one upload's documents may take (chunk-store.ts). A test that is not
   * about this deadline lengthens it: a loaded CI machine starves the worker's nice-10 thread.
   */
  chunkDeadlineMs: number;
}

export function createKnowledgeRuntime(db: Database, log?: Logger): KnowledgeRuntime {
  const balancer = new InFlightBalancer();
  return {
    vectors: new VectorSearch(db),
    embedding: new EmbeddingScheduler(db, balancer, log),
    balancer,
    chunkDeadlineMs: CHUNK_DEADLINE_MS,
  };
}
