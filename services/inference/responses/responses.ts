// POST /v1/responses, GET and DELETE /v1/responses/{id}: a translator around the chat core
// (../chat.ts), which runs the lifecycle (key, context, limits, quota, guardrails, templates and
// retrieval, logs and usage). Stored responses (`store`, default true) live per organization through
// the FiltrationPort (services/responses/store.ts) and carry their conversation, so
// `previous_response_id` continues it: the previous input and output, then the new input.

import type { InferenceAnswer } from "#contracts/internal/inference-answer.ts";
import type { ReceivedCompletion } from "#contracts/openai/chat.ts";
import type {
  ConversationItem,
  InputItemsQuery,
  ResponseObject,
  ResponsesRequest,
} from "#contracts/openai/responses.ts";
import { AppError } from "#core/errors.ts";
import { unresolved } from "../admission.ts";
import { chatCompletion } from "../chat.ts";
import { translateChatStream } from "../chat-stream.ts";
import type { TranslatedInput } from "../completions/completions.ts";
import type { InferenceContext, KeyedLookup, StoredResponse } from "../port.ts";
import type { InferenceRuntime } from "../runtime.ts";
import { itemLocation, newResponseId, outputOf, responseObject, statusOf, usageOf } from "./answer.ts";
import { inputItemPage, withIds } from "./items.ts";
import { inputItems, refuseUnsupported, toChatRequest } from "./request.ts";
import { responseEvents } from "./stream.ts";

export type ResponseResult = InferenceAnswer<ResponseObject>;

const notFound = (id: string, param: string) =>
  new AppError("not_found", `no response with id ${id}`, { param, openai_code: "not_found" });

export async function createResponse(
  runtime: InferenceRuntime,
  input: TranslatedInput<ResponsesRequest>,
): Promise<ResponseResult> {
  const { body } = input;
  refuseUnsupported(body);
  // Earlier turns are read with the caller's key before the lifecycle starts: they are part of the
  // prompt its limits, guardrails and templates see.
  const lookups = new Map<string, Promise<KeyedLookup>>();
  const stored = async (id: string, param: string): Promise<StoredResponse> => {
    if (!input.apiKey) throw unresolved.invalid_api_key();
    const lookup = lookups.get(id) ?? runtime.port.responses.find(input.apiKey, id);
    lookups.set(id, lookup);
    const found = await lookup;
    if (!found.ok)
      throw found.reason === "invalid_api_key" ? unresolved.invalid_api_key() : notFound(id, param);
    return found.response;
  };
  const previous = body.previous_response_id
    ? await stored(body.previous_response_id, "previous_response_id")
    : undefined;
  const earlier: ConversationItem[] = previous ? [...previous.conversation, ...previous.body.output] : [];
  const current = await inputItems(body.input, {
    async item(id) {
      const where = itemLocation(id);
      if (!where) return undefined;
      const response = await stored(where.responseId, "input");
      return response.body.output[where.index];
    },
  });
  const id = newResponseId();
  // Every item gets its id now, so that input_items names it alike in each later turn.
  const conversation = withIds([...earlier, ...current], id);

  const result = await chatCompletion(runtime, {
    ...input,
    body: toChatRequest(body, conversation, earlier.length),
    inputParam: "input",
  });
  const meta = {
    id,
    createdAt: Math.floor(Date.now() / 1000),
    request: body,
    store: body.store !== false,
  };
  const save = async (response: ResponseObject) => {
    if (!meta.store) return;
    await runtime.port.responses.save(record(result.context, conversation, response));
  };
  if (result.kind === "stream") {
    return {
      kind: "stream",
      stream: translateChatStream(result.stream, responseEvents(meta, save)),
      cache: result.cache,
    };
  }
  const answer = result.body as ReceivedCompletion;
  const { output, finishReason } = outputOf(meta.id, answer);
  const response = responseObject(meta, {
    ...statusOf(finishReason),
    output,
    usage: answer.usage ? usageOf(answer.usage) : undefined,
  });
  await save(response);
  return { kind: "json", body: response, cache: result.cache };
}

const record = (
  context: InferenceContext,
  conversation: ConversationItem[],
  body: ResponseObject,
): StoredResponse => ({
  id: body.id,
  orgId: context.orgId,
  apiKeyId: context.apiKeyId || undefined,
  deploymentId: context.deployment.id,
  conversation,
  body,
});

export async function getResponse(runtime: InferenceRuntime, apiKey: string | undefined, id: string) {
  if (!apiKey) throw unresolved.invalid_api_key();
  const found = await runtime.port.responses.find(apiKey, id);
  if (!found.ok)
    throw found.reason === "invalid_api_key" ? unresolved.invalid_api_key() : notFound(id, "response_id");
  return found.response.body;
}

/** GET /v1/responses/{id}/input_items: a page of the items the stored response answered. */
export async function listInputItems(
  runtime: InferenceRuntime,
  apiKey: string | undefined,
  id: string,
  query: InputItemsQuery,
) {
  if (!apiKey) throw unresolved.invalid_api_key();
  const found = await runtime.port.responses.find(apiKey, id);
  if (!found.ok)
    throw found.reason === "invalid_api_key" ? unresolved.invalid_api_key() : notFound(id, "response_id");
  return inputItemPage(found.response.conversation, id, query);
}

export async function deleteResponse(runtime: InferenceRuntime, apiKey: string | undefined, id: string) {
  if (!apiKey) throw unresolved.invalid_api_key();
  const deleted = await runtime.port.responses.delete(apiKey, id);
  if (!deleted.ok)
    throw deleted.reason === "invalid_api_key" ? unresolved.invalid_api_key() : notFound(id, "response_id");
  return { id, object: "response" as const, deleted: true as const };
}
