import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listProviderConfigs, setProviderConfig } from "#services/provider-configs/config.ts";
import { attempt, type FieldErrors } from "../../_shared/form.ts";
import { pageInfo } from "../../_shared/page.ts";
import { redirect } from "../../_shared/session.ts";
import { ProvidersPage } from "../_view.tsx";

/** The form's fields as the service's input: credential_<name> fields, blank ones left out. */
function inputOf(body: Record<string, unknown>): {
  settings?: Record<string, unknown>;
  credentials?: Record<string, string>;
  errors?: FieldErrors;
} {
  const credentials: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key.startsWith("credential_") && typeof value === "string" && value.trim() !== "")
      credentials[key.slice("credential_".length)] = value.trim();
  }
  const raw = typeof body.settings_json === "string" ? body.settings_json.trim() : "";
  let settings: unknown = {};
  try {
    settings = raw === "" ? {} : JSON.parse(raw);
  } catch {
    return { errors: { settings_json: "Not valid JSON." } };
  }
  if (typeof settings !== "object" || settings === null || Array.isArray(settings))
    return { errors: { settings_json: 'A JSON object is needed, e.g. {"namespace": "llm"}.' } };
  return {
    settings: settings as Record<string, unknown>,
    ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
  };
}

export const POST = route({
  access: "providers:write",
  summary: "Save a provider's settings and credentials from the form",
  html: true,
  params: t.Object({ provider: t.String() }),
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, params, body, request, set }) => {
    const input = inputOf(body);
    const saved = input.errors
      ? ({ ok: false, errors: input.errors } as const)
      : await attempt(() => setProviderConfig(ctx, { provider: params.provider, ...input }));
    if (saved.ok) return redirect(`/providers?saved=${encodeURIComponent(params.provider)}`);
    set.status = 422;
    // The credential fields are never echoed back, even when the form failed.
    const values = { settings_json: body.settings_json };
    return (
      <ProvidersPage
        page={await pageInfo(ctx, request)}
        providers={(await listProviderConfigs(ctx)).providers}
        failed={{ provider: params.provider, form: { errors: saved.errors, values } }}
      />
    );
  },
});
