// What the providers page asks for each provider: the settings and credentials its adapter reads
// (adapters/providers/<id>/, documented in docs/providers.md), as a list of fields. A new kind of
// provider is one more entry here; a provider without an entry gets the settings as a JSON object.
import type { ProviderId } from "#core/domain.ts";
import type { ProviderConfigView } from "#services/provider-configs/config.ts";
import type { FieldErrors, FormValues } from "../_shared/form.ts";

/** A provider's settings, as the service stores and shows them. */
type Settings = ProviderConfigView["settings"];

export type ProviderFieldKind = "text" | "url" | "number" | "choice" | "json";

export interface SettingField {
  name: string;
  label: string;
  kind: ProviderFieldKind;
  hint?: string;
  placeholder?: string;
  /** For `choice`. */
  choices?: readonly string[];
}

export interface CredentialField {
  name: string;
  label: string;
  /** A file's text (a kubeconfig) rather than one line. */
  multiline?: boolean;
}

export interface ProviderForm {
  /** Its section in docs/providers.md (a heading's anchor; tests/dashboard/providers-form.test.ts checks it exists). */
  docs: string;
  /** What it is, in a line. */
  summary: string;
  /** False: it works with nothing saved (shown as ready). */
  needsConfiguration: boolean;
  settings: SettingField[];
  credentials: CredentialField[];
}

const baseUrl = (fallback: string): SettingField => ({
  name: "base_url",
  label: "API base URL",
  kind: "url",
  placeholder: fallback,
  hint: `Blank: ${fallback}.`,
});

export const providerForms: Partial<Record<ProviderId, ProviderForm>> = {
  local: {
    docs: "local-provider",
    summary: "llama.cpp workers started on this machine. Nothing to configure.",
    needsConfiguration: false,
    settings: [],
    credentials: [],
  },
  external: {
    docs: "external-endpoints",
    summary:
      "OpenAI-compatible servers that already run; each deployment lists their URLs (configuration.endpoints). Nothing to configure here.",
    needsConfiguration: false,
    settings: [],
    credentials: [],
  },
  kubernetes: {
    docs: "kubernetes-provider",
    summary:
      "One Deployment and Service per replica in a cluster. Without a kubeconfig, the pod's service account.",
    needsConfiguration: true,
    credentials: [{ name: "kubeconfig", label: "kubeconfig (the file's text)", multiline: true }],
    settings: [
      { name: "namespace", label: "Namespace", kind: "text", hint: "Blank: the context's, else default." },
      {
        name: "endpoint_mode",
        label: "How the gateway reaches replicas",
        kind: "choice",
        choices: ["service-proxy", "cluster-dns"],
        hint: "service-proxy: through the API server; cluster-dns: from inside the cluster.",
      },
      { name: "proxy_url", label: "Proxy URL", kind: "url" },
      {
        name: "gpu_label",
        label: "GPU product node label",
        kind: "text",
        placeholder: "nvidia.com/gpu.product",
      },
      {
        name: "gpu_prices_per_hour",
        label: "GPU prices per hour (JSON object)",
        kind: "json",
        placeholder: '{"NVIDIA-L4": 0.8}',
        hint: "US dollars per GPU and hour by GPU product; needed for a pool's max_cost_per_hour.",
      },
    ],
  },
  skypilot: {
    docs: "skypilot",
    summary: "Clusters launched through a SkyPilot API server.",
    needsConfiguration: true,
    credentials: [{ name: "token", label: "API server token" }],
    settings: [
      { name: "base_url", label: "API server URL", kind: "url", placeholder: "http://sky-api:46580" },
      {
        name: "poll_interval_s",
        label: "Poll interval (seconds)",
        kind: "number",
        placeholder: "10",
        hint: "How often a ready cluster is asked again.",
      },
    ],
  },
  akash: {
    docs: "akash",
    summary: "Leases on the Akash network through the Console API's managed wallet.",
    needsConfiguration: true,
    credentials: [{ name: "api_key", label: "Console API key" }],
    settings: [
      baseUrl("https://console-api.akash.network"),
      {
        name: "akt_price_usd",
        label: "AKT price (USD)",
        kind: "number",
        hint: "Needed to price bids in uakt.",
      },
      { name: "deposit_usd", label: "Escrow deposit per replica (USD)", kind: "number", placeholder: "5" },
      {
        name: "bid_wait_s",
        label: "Wait for a bid under the ceiling (seconds)",
        kind: "number",
        placeholder: "60",
      },
      { name: "bid_timeout_s", label: "Wait for any bid (seconds)", kind: "number", placeholder: "300" },
    ],
  },
  nosana: {
    docs: "nosana",
    summary: "GPU markets of the Nosana network; the default provider once its key is saved.",
    needsConfiguration: true,
    credentials: [{ name: "api_key", label: "API key" }],
    settings: [baseUrl("https://dashboard.k8s.prd.nos.ci/api")],
  },
};

/** Where a provider's documentation is, relative to the dashboard (served by /docs/[file]). */
export const docsHref = (form: ProviderForm | undefined) =>
  `/docs/providers.md${form ? `#${form.docs}` : ""}`;

/** A stored setting as its field shows it. */
export function settingText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export interface ProviderFormInput {
  settings: Settings;
  /** Absent: keep the stored credentials (every credential field was left blank). */
  credentials?: Record<string, string>;
}

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/**
 * The posted form as the service's input. Settings the form does not show (set through the API) are
 * kept from `stored`; a blank field removes its setting (the adapter's default applies); blank
 * credential fields keep what is stored.
 */
export function formInput(
  form: ProviderForm,
  body: FormValues,
  stored: Settings,
): { ok: true; input: ProviderFormInput } | { ok: false; errors: FieldErrors } {
  const settings: Settings = { ...stored };
  const errors: FieldErrors = {};
  for (const field of form.settings) {
    const key = `setting_${field.name}`;
    const raw = text(body[key]);
    delete settings[field.name];
    if (raw === "") continue;
    const value = settingValue(field, raw);
    if (value.ok) settings[field.name] = value.value;
    else errors[key] = value.error;
  }
  const credentials: Record<string, string> = {};
  for (const field of form.credentials) {
    const raw = text(body[`credential_${field.name}`]);
    if (raw !== "") credentials[field.name] = raw;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, input: { settings, ...(Object.keys(credentials).length > 0 ? { credentials } : {}) } };
}

function settingValue(
  field: SettingField,
  raw: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  switch (field.kind) {
    case "number": {
      const n = Number(raw);
      return Number.isFinite(n) && n >= 0
        ? { ok: true, value: n }
        : { ok: false, error: "must be a number, 0 or more" };
    }
    case "choice":
      return field.choices?.includes(raw)
        ? { ok: true, value: raw }
        : { ok: false, error: `must be one of ${field.choices?.join(", ")}` };
    case "url":
      return URL.canParse(raw) && /^https?:/.test(raw)
        ? { ok: true, value: raw }
        : { ok: false, error: "must be an http(s) URL" };
    case "json": {
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
          return { ok: true, value: parsed };
      } catch {}
      return { ok: false, error: 'must be a JSON object, e.g. {"NVIDIA-L4": 0.8}' };
    }
    default:
      return { ok: true, value: raw };
  }
}

/** A provider without a form above: its settings as one JSON object (`settings_json`). */
export function jsonInput(
  body: FormValues,
): { ok: true; input: ProviderFormInput } | { ok: false; errors: FieldErrors } {
  const raw = text(body.settings_json);
  let settings: unknown = {};
  try {
    settings = raw === "" ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, errors: { settings_json: "Not valid JSON." } };
  }
  if (typeof settings !== "object" || settings === null || Array.isArray(settings))
    return { ok: false, errors: { settings_json: 'A JSON object is needed, e.g. {"namespace": "llm"}.' } };
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(body))
    if (key.startsWith("credential_") && text(value) !== "")
      credentials[key.slice("credential_".length)] = text(value);
  return {
    ok: true,
    input: {
      settings: { ...settings },
      ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
    },
  };
}
