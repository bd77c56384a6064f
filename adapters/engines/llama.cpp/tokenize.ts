// POST /v1/tokenize: a chat request's prompt counted as a completion would count it (the chat
// wrapper's rendering, tools and forced-call instructions included) with the model's tokenizer, without
// generating and without the context-size check: the gateway's Anthropic count_tokens asks it. The
// answer follows vLLM's tokenize endpoint: {count, max_model_len}.
import { promptTokensOf } from "./generate.ts";
import { addSystemText, toChatHistory } from "./history.ts";
import { parseChatRequest } from "./openai-shapes.ts";
import { json, type RouteContext, readJson } from "./route-context.ts";
import { planTools } from "./tools.ts";

export async function tokenize(ctx: RouteContext, req: Request): Promise<Response> {
  const read = await readJson(req);
  if (!read.ok) return read.answer;
  const parsed = parseChatRequest(read.body);
  if (!parsed.ok) return json(400, parsed.error);
  const history = toChatHistory(parsed.value.messages);
  if (!history.ok) return json(400, history.error);
  // As buildGeneration: the prompt ends with the model turn the completion would fill.
  const last = history.value.at(-1);
  if (last?.type !== "model" || !last.response.some((item) => typeof item !== "string"))
    history.value.push({ type: "model", response: [] });
  const tools = planTools(parsed.value);
  if (!tools.ok) return json(400, tools.error);
  if (tools.value.kind === "forced") addSystemText(history.value, tools.value.instructions);
  const functions = tools.value.kind === "auto" ? tools.value.functions : undefined;
  const count = promptTokensOf(ctx.renderer, history.value, functions).length;
  return json(200, { count, max_model_len: ctx.renderer.contextSize });
}
