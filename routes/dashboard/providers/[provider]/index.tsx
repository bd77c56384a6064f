import { t } from "elysia";
import { providerIds } from "#core/domain.ts";
import { route } from "#server/http/route.ts";
import { listProviderConfigs, setProviderConfig } from "#services/provider-configs/config.ts";
import { attempt, type FieldErrors, type FormResult } from "../../_shared/form.ts";
import { pageInfo } from "../../_shared/page.ts";
import { redirect } from "../../_shared/session.ts";
import { formInput, jsonInput, providerForms } from "../_forms.ts";
import { ProvidersPage } from "../_view.tsx";

/** The service names `settings.base_url`; the form's field is `setting_base_url`. */
const fieldNamesOf = (errors: FieldErrors): FieldErrors =>
  Object.fromEntries(
    Object.entries(errors).map(([k, v]) => [
      k.replace(/^settings\./, "setting_").replace(/^credentials\./, "credential_"),
      v,
    ]),
  );

export const POST = route({
  access: "providers:write",
  summary: "Save a provider's settings and credentials from its form",
  html: true,
  params: t.Object({ provider: t.String({ maxLength: 64 }) }),
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, params, body, request, set }) => {
    const providers = (await listProviderConfigs(ctx)).providers;
    const stored = providers.find((p) => p.provider === params.provider);
    const id = providerIds.find((p) => p === params.provider);
    const form = id ? providerForms[id] : undefined;
    const parsed = form ? formInput(form, body, stored?.settings ?? {}) : jsonInput(body);
    // An unknown provider falls through to the service, which names the known ones.
    const saved: FormResult<unknown> = parsed.ok
      ? await attempt(() => setProviderConfig(ctx, { provider: params.provider, ...parsed.input }))
      : parsed;
    if (saved.ok) return redirect(`/providers?saved=${encodeURIComponent(params.provider)}`);
    set.status = 422;
    const errors = fieldNamesOf(saved.errors);
    // What was typed comes back, but never a credential, even when the form failed.
    const values = Object.fromEntries(Object.entries(body).filter(([k]) => !k.startsWith("credential_")));
    return (
      <ProvidersPage
        page={await pageInfo(ctx, request)}
        providers={providers}
        failed={{ provider: params.provider, form: { errors, values } }}
      />
    );
  },
});
