// The worker's HTTP routes: OpenAI chat completions (plain and SSE, chat-route.ts and chat-stream.ts),
// embeddings, prompt token counts (tokenize.ts), the model list and a liveness probe.
// Each completion borrows one context sequence from the pool for its whole life and gives it back at the end,
// whether it finished, the client went away, or the worker is shutting down.

import type { ModelList } from "#contracts/openai/models.ts";
import { chatCompletions } from "./chat-route.ts";
import { embeddingList, parseEmbeddingRequest } from "./embeddings.ts";
import { invalidRequest, serverError } from "./openai-shapes.ts";
import { json, type RouteContext, type RoutesDeps, readJson } from "./route-context.ts";
import { tokenize } from "./tokenize.ts";

export type { RoutesDeps } from "./route-context.ts";

export interface Routes {
  fetch(req: Request): Promise<Response>;
  /** Resolves when every generation started so far has given its sequence back. */
  drained(): Promise<void>;
}

const paths = ["/v1/chat/completions", "/v1/embeddings", "/v1/models", "/v1/tokenize", "/health"];

export function createRoutes(deps: RoutesDeps): Routes {
  const created = Math.floor(Date.now() / 1000);
  const running = new Set<Promise<unknown>>();
  const ctx: RouteContext = {
    ...deps,
    track(work) {
      running.add(work);
      void work.finally(() => running.delete(work)).catch(() => {});
      return work;
    },
  };
  return {
    async fetch(req) {
      const { pathname } = new URL(req.url);
      switch (`${req.method} ${pathname}`) {
        case "POST /v1/chat/completions":
          return chatCompletions(ctx, req);
        case "POST /v1/embeddings":
          return embeddings(ctx, req);
        case "POST /v1/tokenize":
          return tokenize(ctx, req);
        case "GET /v1/models":
          return json(200, modelList(deps.modelName, created));
        case "GET /health":
          return json(200, { status: "ok" });
      }
      return json(
        paths.includes(pathname) ? 405 : 404,
        invalidRequest(`Invalid URL (${req.method} ${pathname})`),
      );
    },
    async drained() {
      await Promise.allSettled([...running]);
    },
  };
}

const modelList = (modelName: string, created: number): ModelList => ({
  object: "list",
  data: [{ id: modelName, object: "model", created, owned_by: "llama.cpp" }],
});

async function embeddings(ctx: RouteContext, req: Request): Promise<Response> {
  if (!ctx.embedder) return json(404, invalidRequest("this worker does not serve embeddings"));
  const read = await readJson(req);
  if (!read.ok) return read.answer;
  const parsed = parseEmbeddingRequest(read.body);
  if (!parsed.ok) return json(400, parsed.error);
  try {
    const { vectors, tokens } = await ctx.track(ctx.embedder.embed(parsed.value.input));
    return json(200, embeddingList(ctx.modelName, parsed.value, vectors, tokens));
  } catch (error) {
    ctx.log.error("embedding failed", { error });
    return json(500, serverError("the model failed to embed the input", "embedding_failed"));
  }
}
