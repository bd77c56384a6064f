// What an inference service (chat, completions, responses, Anthropic messages) hands its route: a JSON
// body or a server-sent event stream, and where the response cache stood. Written once here; the routes
// render it (server/http/inference-answer.ts).

export type InferenceAnswer<Body> = (
  | { kind: "json"; body: Body }
  | { kind: "stream"; stream: ReadableStream<Uint8Array> }
) & {
  /** Where a cache policy applies: from the response cache (hit) or the model (miss). */
  cache?: "hit" | "miss" | undefined;
};
