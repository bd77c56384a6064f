// Keeps a collection's passages embedded by the deployment a `rag` policy names: the passages without
// an embedding by it are sent in batches to its replicas and stored. Runs in the background, started
// when a policy names the deployment and again by questions that use it, so passages uploaded later
// join the vector ranking shortly after; one run per deployment and collections at a time.
import { and, asc, eq, inArray, notExists, sql } from "drizzle-orm";
import type { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { embedTexts } from "#adapters/upstream/embed.ts";
import type { Database } from "#db/client.ts";
import { knowledgeChunkEmbeddings, knowledgeChunks } from "#db/schema/index.ts";
import type { Logger } from "../context.ts";
import { storeEmbeddings } from "./vector-search.ts";

export interface EmbeddingTarget {
  deploymentId: string;
  /** The deployment's name: its replicas' model. */
  name: string;
  endpoints: readonly string[];
}

/** Texts per request to the replicas: small enough that one batch never nears the time-out. */
const batchSize = 16;
const batchTimeoutMs = 120_000;
/** A run that found nothing to do is not repeated sooner than this. */
const quietMs = 5_000;

export type Embed = (texts: string[]) => Promise<Float32Array[]>;

export function embedderFor(target: EmbeddingTarget, balancer?: InFlightBalancer): Embed {
  return (texts) =>
    embedTexts({
      endpoints: target.endpoints,
      model: target.name,
      texts,
      timeoutMs: batchTimeoutMs,
      balancer,
    });
}

/** Embeds every passage of the collections the deployment has not embedded yet; returns how many. */
export async function embedMissingPassages(
  db: Database,
  deploymentId: string,
  collectionIds: string[],
  embed: Embed,
): Promise<number> {
  let done = 0;
  for (;;) {
    const batch = await db
      .select({
        chunkId: knowledgeChunks.id,
        collectionId: knowledgeChunks.collectionId,
        heading: knowledgeChunks.heading,
        text: knowledgeChunks.text,
      })
      .from(knowledgeChunks)
      .where(
        and(
          inArray(knowledgeChunks.collectionId, collectionIds),
          notExists(
            db
              .select({ one: sql`1` })
              .from(knowledgeChunkEmbeddings)
              .where(
                and(
                  eq(knowledgeChunkEmbeddings.chunkId, knowledgeChunks.id),
                  eq(knowledgeChunkEmbeddings.deploymentId, deploymentId),
                ),
              ),
          ),
        ),
      )
      .orderBy(asc(knowledgeChunks.id))
      .limit(batchSize);
    if (batch.length === 0) return done;
    // The heading path travels with the text, as full-text search weighs it.
    const vectors = await embed(batch.map((c) => (c.heading ? `${c.heading}\n${c.text}` : c.text)));
    await storeEmbeddings(
      db,
      deploymentId,
      batch.map((c, i) => ({
        chunkId: c.chunkId,
        collectionId: c.collectionId,
        embedding: vectors[i] as Float32Array,
      })),
    );
    done += batch.length;
  }
}

/**
 * The background runs of one process: one per deployment and collections at a time, and none again
 * within the quiet period of a run that found nothing to do. Built by the composition root
 * (services/knowledge-base/runtime.ts).
 */
export class EmbeddingScheduler {
  readonly #runs = new Map<string, Promise<void>>();
  readonly #lastQuietRun = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly balancer: InFlightBalancer,
    private readonly log?: Logger,
    /** The clock the quiet period is counted on (a test moves its own). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts embedding the collections' missing passages in the background, unless a run is under way. */
  schedule(
    target: EmbeddingTarget,
    collectionIds: string[],
    embed: Embed = embedderFor(target, this.balancer),
  ): Promise<void> {
    const key = `${target.deploymentId}:${[...collectionIds].sort().join(",")}`;
    const running = this.#runs.get(key);
    if (running) return running;
    if (this.now() - (this.#lastQuietRun.get(key) ?? 0) < quietMs) return Promise.resolve();
    const { log } = this;
    const run = embedMissingPassages(this.db, target.deploymentId, collectionIds, embed)
      .then((embedded) => {
        if (embedded === 0) this.#lastQuietRun.set(key, this.now());
        else log?.info("passages embedded", { deployment_id: target.deploymentId, passages: embedded });
      })
      .catch((error: unknown) => {
        this.#lastQuietRun.set(key, this.now());
        log?.warn("embedding passages failed; retried on a later question", {
          deployment_id: target.deploymentId,
          error,
        });
      })
      .finally(() => this.#runs.delete(key));
    this.#runs.set(key, run);
    return run;
  }
}
