// The deploy form's fields as the API's deploy request: the model from the registry or the path
// typed in, and the container image the engine documents when the form leaves it blank.

import { t } from "elysia";
import { engines } from "#adapters/engines/index.ts";
import { deploymentStates, engineIds } from "#core/domain.ts";
import type { DeployInput } from "#services/orchestration/deploy-request.ts";
import type { FieldErrors, FormValues } from "../_shared/form.ts";

/** The image recorded for a deployment whose form left it blank: the engine's own, else its name. */
export function defaultImageOf(engine: string): string {
  try {
    const id = engineIds.find((e) => e === engine);
    const container = (id ? engines[id] : undefined)?.container?.({
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

/**
 * The engine's settings the form offers as fields (`configuration.<key>`), per engine, with how a typed
 * value becomes the configuration's: numbers, a list of lines, or text. Anything else goes in the
 * form's raw JSON (`configuration_json`), which the fields override.
 */
export const configurationFields = {
  "llama.cpp": { threads: "number", parallel: "number", context_size: "number" },
  container: { max_model_len: "number", quantization: "text", hf_token: "secret" },
  // Hosted upstreams name a credential of the external provider configuration: never a key here.
  "openai-compatible": { endpoints: "lines", credential: "text" },
} as const;

const fieldKinds: Record<string, "number" | "text" | "secret" | "lines"> = Object.assign(
  {},
  ...Object.values(configurationFields),
);

/** The deploy request's engine settings (any JSON object; the engine checks its own keys). */
type Configuration = NonNullable<DeployInput["configuration"]>;

function configurationOf(form: FormValues): { configuration?: Configuration; error?: string } {
  const configuration: Configuration = {};
  const raw = typeof form.configuration_json === "string" ? form.configuration_json.trim() : "";
  if (raw) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return { error: "Not valid JSON." };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return { error: 'A JSON object is needed, e.g. {"threads": 2}.' };
    }
    Object.assign(configuration, parsed);
  }
  for (const [name, value] of Object.entries(form)) {
    const key = name.startsWith("configuration.") ? name.slice("configuration.".length) : undefined;
    if (!key || typeof value !== "string" || value.trim() === "") continue;
    const kind = fieldKinds[key] ?? "text";
    const text = value.trim();
    configuration[key] =
      kind === "number" && Number.isFinite(Number(text))
        ? Number(text)
        : kind === "lines"
          ? text.split(/[\s,]+/).filter(Boolean)
          : text;
  }
  return Object.keys(configuration).length > 0 ? { configuration } : {};
}

/** The form as the API's deploy request, and the problems found before the API's own checks. */
export function deployRequestOf(form: FormValues): { request: FormValues; errors: FieldErrors } {
  const { registry_model, configuration_json, ...rest } = form;
  for (const name of Object.keys(rest)) if (name.startsWith("configuration.")) delete rest[name];
  const engine = typeof form.engine === "string" ? form.engine : "llama.cpp";
  const typed = typeof form.inference_model === "string" ? form.inference_model.trim() : "";
  const { configuration, error } = configurationOf(form);
  return {
    request: {
      ...rest,
      ...(configuration ? { configuration } : {}),
      inference_model: typed || (typeof registry_model === "string" ? registry_model : ""),
      image: typeof form.image === "string" && form.image.trim() ? form.image : defaultImageOf(engine),
    },
    errors: error ? { configuration_json: error } : {},
  };
}

/**
 * A refusal's field names as the form's: `configuration.endpoints.0` is the endpoints field's, a
 * setting the form has no field for is the raw JSON's.
 */
export function deployFormErrors(errors: FieldErrors): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, message] of Object.entries(errors)) {
    if (!field.startsWith("configuration")) {
      out[field] ??= message;
      continue;
    }
    const key = field.split(".")[1];
    const name = key && key in fieldKinds ? `configuration.${key}` : "configuration_json";
    out[name] ??= key && !(key in fieldKinds) ? `${key}: ${message}` : message;
  }
  return out;
}

/** The list page's query: filters and page, as links and the polled rows carry them. */
export const pageSize = 50;

export const ListQuery = t.Object({
  status: t.Optional(t.Union([t.Literal(""), ...deploymentStates.map((s) => t.Literal(s))])),
  name: t.Optional(t.String({ maxLength: 128 })),
  page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
});

/** The deployments list's filters, as its query string carries them. */
export interface DeploymentFilters {
  status?: string | undefined;
  name?: string | undefined;
  page: number;
}

export const filtersOf = (query: { status?: string; name?: string; page?: number }): DeploymentFilters => ({
  status: query.status || undefined,
  name: query.name?.trim() || undefined,
  page: query.page ?? 1,
});

/** The filters (and a page) as the query string of the list's links and polled rows. */
export const filtersQuery = (f: DeploymentFilters, page = f.page) =>
  new URLSearchParams({
    ...(f.status ? { status: f.status } : {}),
    ...(f.name ? { name: f.name } : {}),
    ...(page > 1 ? { page: String(page) } : {}),
  }).toString();
