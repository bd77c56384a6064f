// adapters/upstream/wire/wire.ts
// How one upstream API differs from OpenAI's. Inside, the platform speaks OpenAI's chat and embeddings
// (the gateway serves /v1/completions and /v1/responses as translations of chat, so no completions
// request goes upstream); a wire adapter turns such a request into the upstream's and its answer back.
export type OpenAiPath = "/v1/chat/completions" | "/v1/embeddings";
export interface UpstreamTarget {
  /** The endpoint as configured (base URL). */
  endpoint: string;
  /** The model name the upstream expects: the deployment's inference_model. */
  model: string;
  /** The secret of the credential the deployment names, if any. */
  apiKey?: string | undefined;
  /** Non-secret settings of the credential (e.g. Azure's api_version). */
  options?: Readonly<Record<string, string>> | undefined;
}
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}
export interface WireAdapter {
  readonly id: string;
  /** The upstream request for an OpenAI-shaped body (JSON text) the lifecycle produced. */
  request(target: UpstreamTarget, path: OpenAiPath, body: string, stream: boolean): WireRequest;
  /** The upstream's answer as OpenAI would have given it: JSON, or SSE in OpenAI's framing when streamed.
   * A non-2xx answer keeps its status with an OpenAI-shaped error body. */
  response(
    upstream: Response,
    path: OpenAiPath,
    stream: boolean,
    target: UpstreamTarget,
  ): Response | Promise<Response>;
  /** What the readiness probe fetches (GET). */
  probe(target: UpstreamTarget): { url: string; headers: Record<string, string> };
}
