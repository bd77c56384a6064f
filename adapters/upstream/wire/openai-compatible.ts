// Upstreams that already speak OpenAI's API: OpenAI itself and the services and servers that copy it.
// Each flavour says only how it differs from OpenAI (its usual base URL, how the key travels, extra
// headers, the path, request fields it refuses); everything else is OpenAI's. A flavour is chosen by the
// credential's `flavor` option, else by the endpoint's host, else it is plain OpenAI.
import type { OpenAiPath, UpstreamTarget, WireAdapter, WireRequest } from "./wire.ts";

export const flavorIds = [
  "openai",
  "azure",
  "together",
  "groq",
  "mistral",
  "deepseek",
  "openrouter",
  "ollama",
  "vllm",
  "llama-server",
] as const;
export type FlavorId = (typeof flavorIds)[number];

interface Flavor {
  /** The service's base URL (documentation: what to put in `configuration.endpoints`). */
  baseUrl?: string;
  /** Recognises the service by the endpoint's host when no `flavor` option is given. */
  host?: RegExp;
  /** How the key travels; default `Authorization: Bearer <key>`. */
  keyHeader?: (key: string) => Record<string, string>;
  /** Headers taken from the credential's options: option name → header name. */
  optionHeaders?: Readonly<Record<string, string>>;
  /** The URL for an OpenAI path; default `<endpoint><path>`. */
  url?: (target: UpstreamTarget, path: OpenAiPath) => string;
  /** Request fields the service refuses; the lifecycle adds some of them on its own (stream_options). */
  refuses?: readonly string[];
  /** What the readiness probe GETs; default `<endpoint>/v1/models`. */
  probeUrl?: (target: UpstreamTarget) => string;
}

/** Azure OpenAI's GA data-plane version (learn.microsoft.com, "Azure OpenAI REST API reference"). */
export const azureDefaultApiVersion = "2024-10-21";

const azureVersion = (target: UpstreamTarget) =>
  encodeURIComponent(target.options?.api_version ?? azureDefaultApiVersion);

export const flavors: Readonly<Record<FlavorId, Flavor>> = {
  openai: {
    baseUrl: "https://api.openai.com",
    host: /(^|\.)api\.openai\.com$/,
    // Which organization and project a key bills (platform.openai.com, "Authentication").
    optionHeaders: { organization: "OpenAI-Organization", project: "OpenAI-Project" },
  },
  azure: {
    host: /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/,
    keyHeader: (key) => ({ "api-key": key }),
    // The model is the Azure deployment named in the path; the version is a query parameter.
    url: (target, path) =>
      `${target.endpoint}/openai/deployments/${encodeURIComponent(target.model)}${path.slice("/v1".length)}?api-version=${azureVersion(target)}`,
    probeUrl: (target) => `${target.endpoint}/openai/models?api-version=${azureVersion(target)}`,
  },
  together: { baseUrl: "https://api.together.xyz", host: /(^|\.)api\.together\.(xyz|ai)$/ },
  groq: { baseUrl: "https://api.groq.com/openai", host: /(^|\.)api\.groq\.com$/ },
  // Mistral refuses fields it does not know (422) and always ends a stream with its usage.
  mistral: {
    baseUrl: "https://api.mistral.ai",
    host: /(^|\.)api\.mistral\.ai$/,
    refuses: ["stream_options"],
  },
  deepseek: { baseUrl: "https://api.deepseek.com", host: /(^|\.)api\.deepseek\.com$/ },
  openrouter: {
    baseUrl: "https://openrouter.ai/api",
    host: /(^|\.)openrouter\.ai$/,
    // Optional attribution headers (openrouter.ai/docs, "API reference").
    optionHeaders: { referer: "HTTP-Referer", title: "X-Title" },
  },
  // Local servers: usually no key at all (a key, when given, goes as a bearer token).
  ollama: { baseUrl: "http://localhost:11434", host: /^ollama(\.|$)/ },
  vllm: { baseUrl: "http://localhost:8000" },
  "llama-server": { baseUrl: "http://localhost:8080" },
};

const isFlavorId = (value: string): value is FlavorId => (flavorIds as readonly string[]).includes(value);

export function flavorOf(target: UpstreamTarget): FlavorId {
  const chosen = target.options?.flavor;
  if (chosen && isFlavorId(chosen)) return chosen;
  let host = "";
  try {
    host = new URL(target.endpoint).hostname;
  } catch {}
  const found = flavorIds.find((id) => flavors[id].host?.test(host));
  return found ?? "openai";
}

function headersOf(flavor: Flavor, target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  if (target.apiKey) {
    Object.assign(headers, flavor.keyHeader?.(target.apiKey) ?? { authorization: `Bearer ${target.apiKey}` });
  }
  for (const [option, header] of Object.entries(flavor.optionHeaders ?? {})) {
    const value = target.options?.[option];
    if (value) headers[header] = value;
  }
  return headers;
}

/**
 * The body without the fields the service refuses. The lifecycle wrote the upstream's model name into it
 * already (services/inference/routing.ts), so a body that needs no change is sent as it is, unparsed.
 */
function bodyFor(flavor: Flavor, target: UpstreamTarget, body: string): string {
  if (!flavor.refuses?.length) return body;
  const parsed: unknown = JSON.parse(body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return body;
  const fields: { [field: string]: unknown } = { ...parsed, model: target.model };
  for (const field of flavor.refuses ?? []) delete fields[field];
  return JSON.stringify(fields);
}

export const openAiCompatibleWire: WireAdapter = {
  id: "openai-compatible",
  request(target, path, body): WireRequest {
    const flavor = flavors[flavorOf(target)];
    return {
      url: flavor.url?.(target, path) ?? `${target.endpoint}${path}`,
      headers: headersOf(flavor, target),
      body: bodyFor(flavor, target, body),
    };
  },
  // The answer is already OpenAI's: chat, the relay and refusal.ts read it as any replica's.
  response: (upstream) => upstream,
  probe(target) {
    const flavor = flavors[flavorOf(target)];
    return {
      url: flavor.probeUrl?.(target) ?? `${target.endpoint}/v1/models`,
      headers: headersOf(flavor, target),
    };
  },
};
