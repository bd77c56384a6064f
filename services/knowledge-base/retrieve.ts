// Retrieval for a question under a `rag` policy: full-text ranking always; with an
// `embedding_deployment`, the question embedded by it and a vector ranking fused with the full text.
// When the vectors cannot take part (the deployment is not RUNNING, does not answer in time, has not
// embedded these collections yet) the answer comes from full text alone and the note says why: the
// request never fails for it.
import { and, eq, isNull } from "drizzle-orm";
import { embedTexts } from "#adapters/upstream/embed.ts";
import type { RetrievalNote } from "#contracts/internal/inference-log.ts";
import type { Database } from "#db/client.ts";
import { deployments } from "#db/schema/index.ts";
import type { Logger } from "../context.ts";
import { readyEndpoints } from "../orchestration/deployment-queries.ts";
import type { EmbeddingTarget } from "./embedding-index.ts";
import type { KnowledgeRuntime } from "./runtime.ts";
import { candidatesFor, choosePassages, fullTextSearch, type Passage, type SearchOptions } from "./search.ts";

export interface RetrievalOptions extends SearchOptions {
  /** The name of a RUNNING deployment that serves /v1/embeddings. */
  embeddingDeployment?: string | undefined;
}

/** The question's embedding must come quickly: the caller is waiting for the model's answer. */
const questionTimeoutMs = 2_000;

type Located = { ok: true; target: EmbeddingTarget } | { ok: false; reason: string };

export async function locateEmbeddingDeployment(db: Database, orgId: string, name: string): Promise<Located> {
  const [deployment] = await db
    .select({ id: deployments.id, status: deployments.status })
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), eq(deployments.name, name), isNull(deployments.deletedAt)))
    .limit(1);
  if (!deployment) return { ok: false, reason: `the embedding deployment ${name} does not exist` };
  if (deployment.status !== "RUNNING")
    return { ok: false, reason: `the embedding deployment ${name} is ${deployment.status}, not RUNNING` };
  const endpoints = await readyEndpoints(db, deployment.id);
  if (endpoints.length === 0)
    return { ok: false, reason: `the embedding deployment ${name} has no ready replica` };
  return { ok: true, target: { deploymentId: deployment.id, name, endpoints } };
}

/** What retrieval needs of the process: the database, the knowledge runtime, a log. */
export interface RetrievalContext {
  db: Database;
  knowledge: KnowledgeRuntime;
  log?: Logger | undefined;
}

export async function retrieve(
  ctx: RetrievalContext,
  orgId: string,
  question: string,
  options: RetrievalOptions,
): Promise<{ passages: Passage[]; note: RetrievalNote }> {
  const { db, knowledge, log } = ctx;
  const name = options.embeddingDeployment;
  const answer = (passages: Passage[], fallback?: string) => ({
    passages,
    note: {
      mode: name && !fallback ? ("hybrid" as const) : ("full_text" as const),
      passages: passages.map((p) => ({ document: p.documentName, score: Math.round(p.score * 1000) / 1000 })),
      ...(name ? { embedding_deployment: name } : {}),
      ...(fallback ? { fallback } : {}),
    },
  });
  // Full text runs while the question is being embedded: it is needed either way.
  const text = fullTextSearch(db, orgId, question, {
    ...options,
    minScore: 0,
    limit: candidatesFor(options.topK),
  });
  text.catch(() => {}); // awaited below on every path; this only keeps an early rejection from going unhandled
  const fullText = async (fallback?: string) => {
    if (fallback) log?.info("retrieval fell back to full text", { reason: fallback });
    return answer(choosePassages(await text, undefined, options), fallback);
  };
  if (!name) return fullText();

  const located = await locateEmbeddingDeployment(db, orgId, name);
  if (!located.ok) return fullText(located.reason);
  const { target } = located;
  void knowledge.embedding.schedule(target, options.collectionIds);

  let query: Float32Array;
  try {
    [query] = (await embedTexts({
      endpoints: target.endpoints,
      model: name,
      texts: [question],
      timeoutMs: questionTimeoutMs,
      balancer: knowledge.balancer,
    })) as [Float32Array];
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return fullText(`the embedding deployment ${name} did not embed the question: ${why}`);
  }
  const vector = await knowledge.vectors.search({
    deploymentId: target.deploymentId,
    collectionIds: options.collectionIds,
    query,
    limit: candidatesFor(options.topK),
  });
  if (vector.length === 0)
    return fullText(`no passage of these collections is embedded by ${name} yet; indexing has started`);
  return answer(choosePassages(await text, vector, options));
}
