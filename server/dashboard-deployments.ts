// The deploy form's fields as the API's deploy request: the model from the registry or the path
// typed in, and the container image the engine documents when the form leaves it blank.

import { t } from "elysia";
import { engines } from "../adapters/engines/index.ts";
import { deploymentStates, type EngineId } from "../db/schema/deployments.ts";
import type { DeploymentFilters } from "../views/deployments.tsx";
import type { FormValues } from "./dashboard-form.ts";

/** The image recorded for a deployment whose form left it blank: the engine's own, else its name. */
export function defaultImageOf(engine: string): string {
  try {
    const container = engines[engine as EngineId]?.container?.({
      modelSource: "model",
      modelName: "model",
      gpus: 0,
      configuration: {},
    });
    return container?.image ?? engine;
  } catch {
    return engine;
  }
}

export function deployRequestOf(form: FormValues): FormValues {
  const { registry_model, ...rest } = form;
  const engine = typeof form.engine === "string" ? form.engine : "llama.cpp";
  const typed = typeof form.inference_model === "string" ? form.inference_model.trim() : "";
  return {
    ...rest,
    inference_model: typed || (typeof registry_model === "string" ? registry_model : ""),
    image: typeof form.image === "string" && form.image.trim() ? form.image : defaultImageOf(engine),
  };
}

/** The list page's query: filters and page, as links and the polled rows carry them. */
export const pageSize = 50;

export const ListQuery = t.Object({
  status: t.Optional(t.Union([t.Literal(""), ...deploymentStates.map((s) => t.Literal(s))])),
  name: t.Optional(t.String({ maxLength: 128 })),
  page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
});

export const filtersOf = (query: { status?: string; name?: string; page?: number }): DeploymentFilters => ({
  status: query.status || undefined,
  name: query.name?.trim() || undefined,
  page: query.page ?? 1,
});
