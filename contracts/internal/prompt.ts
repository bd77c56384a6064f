// POST /internal/prompt/process: a prompt template and retrieved knowledge-base passages applied to an
// inference request's messages by the filtration gateway. Written once here: the route
// (routes/filtration/internal/prompt/process.ts) validates and documents with these schemas; the client
// (server/filtration-http-port.ts) checks the answer.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { IndirectInjectionScanner, RagConfig } from "#core/policies.ts";
import { ChatMessage } from "../openai/chat.ts";
import { Uuid } from "./common.ts";
import { RetrievalNote } from "./inference-log.ts";

export const ProcessPromptRequest = T.Object({
  messages: T.Array(ChatMessage, { minItems: 1, maxItems: 4096 }),
  template_id: T.Optional(T.String({ maxLength: 64 })),
  // The deployment's effective rag policy, as the context resolve gave it.
  rag_config: T.Optional(RagConfig),
  // The deployment's input.indirect_injection guardrail: retrieved passages are screened as data.
  indirect_injection: T.Optional(IndirectInjectionScanner),
  deployment_id: T.Optional(T.String({ maxLength: 64 })),
  org_id: T.Optional(Uuid),
  policies_resolved: T.Optional(
    T.Boolean({
      description: "The caller sends the deployment's effective template and rag: do not read them again",
    }),
  ),
});
export type ProcessPromptRequest = Static<typeof ProcessPromptRequest>;

export const ProcessedPrompt = T.Object({
  messages: T.Array(ChatMessage),
  retrieval: T.Optional(RetrievalNote),
  blocked_by: T.Optional(T.String({ description: "A retrieved passage was blocked by this guardrail" })),
});
export type ProcessedPrompt = Static<typeof ProcessedPrompt>;

export const checkProcessedPrompt = TypeCompiler.Compile(ProcessedPrompt);
