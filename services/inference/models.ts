// GET /v1/models and GET /v1/models/{model}: the deployments an API key may call, as OpenAI's model
// objects. A deployment of another organization, or one the key is not scoped to, does not exist for
// the caller (404 model_not_found, as OpenAI answers for a model it does not know).
import { AppError } from "#core/errors.ts";
import { unresolved } from "./admission.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface ModelObject {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

export async function listModels(
  runtime: InferenceRuntime,
  apiKey: string | undefined,
): Promise<ModelObject[]> {
  const models = apiKey ? await runtime.port.models(apiKey) : undefined;
  if (!models) throw unresolved.invalid_api_key();
  return models.map((m) => ({ id: m.id, object: "model", created: m.created, owned_by: "platform" }));
}

export async function getModel(
  runtime: InferenceRuntime,
  apiKey: string | undefined,
  id: string,
): Promise<ModelObject> {
  const model = (await listModels(runtime, apiKey)).find((m) => m.id === id);
  if (!model) {
    throw new AppError("not_found", `the model '${id}' does not exist or this key may not use it`, {
      param: "model",
      openai_code: "model_not_found",
    });
  }
  return model;
}
