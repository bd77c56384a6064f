// Asks a deployment's replicas for embeddings (OpenAI's POST /v1/embeddings), for retrieval: the
// question at request time, passages while indexing. Vectors come back at unit length, so cosine
// similarity is their dot product.
import { InFlightBalancer } from "./balancer.ts";
import { sendUpstream, type UpstreamRequest, type UpstreamResponse } from "./send.ts";

export interface EmbedRequest {
  endpoints: readonly string[];
  /** The deployment's name, as its replicas know the model. */
  model: string;
  texts: string[];
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Spreads the requests of a process over the replicas (the knowledge runtime's); default: this call's own. */
  balancer?: InFlightBalancer | undefined;
  /**
   * How the call is sent: the inference runtime's upstream client (traced and measured) where there
   * is one; default sendUpstream over `balancer`.
   */
  send?: ((request: UpstreamRequest) => Promise<UpstreamResponse>) | undefined;
}

export async function embedTexts(request: EmbedRequest): Promise<Float32Array[]> {
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  const call: UpstreamRequest = {
    endpoints: request.endpoints,
    path: "/embeddings",
    body: JSON.stringify({ model: request.model, input: request.texts }),
    signal,
    connectTimeoutMs: request.timeoutMs,
    firstByteTimeoutMs: request.timeoutMs,
  };
  const upstream = request.send
    ? await request.send(call)
    : await sendUpstream(request.balancer ?? new InFlightBalancer(), call);
  try {
    if (!upstream.response.ok) throw new Error(`the replica answered ${upstream.response.status}`);
    const body: { data?: { index?: number; embedding?: unknown }[] } = await upstream.response.json();
    const data = body.data ?? [];
    if (data.length !== request.texts.length)
      throw new Error("the replica sent a different number of vectors");
    const vectors: Float32Array[] = [];
    for (const [position, item] of data.entries()) {
      if (!Array.isArray(item.embedding) || item.embedding.length === 0)
        throw new Error("the replica sent an embedding that is not a list of numbers");
      vectors[item.index ?? position] = unitLength(item.embedding);
    }
    return vectors;
  } finally {
    upstream.release();
  }
}

export function unitLength(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}
