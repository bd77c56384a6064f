import type { ProviderConfigView } from "#services/provider-configs/config.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, TextArea } from "../_shared/parts/form.tsx";
import { ActionButton, Ago, Badge, PageHeader } from "../_shared/parts/list.tsx";

/** The credential each adapter reads (README, "Remote providers" and "Kubernetes provider"). */
export const credentialFields: Record<string, { name: string; label: string; multiline?: boolean }[]> = {
  kubernetes: [{ name: "kubeconfig", label: "kubeconfig (the file's text)", multiline: true }],
  skypilot: [{ name: "token", label: "API server token" }],
  akash: [{ name: "api_key", label: "Console API key" }],
  nosana: [{ name: "api_key", label: "API key" }],
};

export interface ProvidersPageProps {
  page: PageInfo;
  providers: ProviderConfigView[];
  /** The provider whose form was posted with problems, and those problems. */
  failed?: { provider: string; form: FormState } | undefined;
  saved?: string | undefined;
}

export function ProvidersPage({ page, providers, failed, saved }: ProvidersPageProps) {
  const writable = can(page, "providers:write");
  return (
    <Layout title="Providers" page={page}>
      <PageHeader title="Provider configuration" />
      <p class="muted">
        Credentials are encrypted at rest and never shown again after saving: only masked. A pool names its
        provider; nosana becomes the default provider once its key is saved.
      </p>
      {saved ? (
        <p class="notice" role="status">
          Saved <strong safe>{saved}</strong>.
        </p>
      ) : null}
      {providers.map((p) => {
        const form = failed?.provider === p.provider ? failed.form : {};
        const fields = credentialFields[p.provider] ?? [];
        const values = { settings_json: JSON.stringify(p.settings, null, 2), ...form.values };
        return (
          <section class="card" id={`provider-${p.provider}`}>
            <h2>
              <span>{p.provider}</span> <Badge state={p.configured ? "configured" : "not configured"} />
            </h2>
            <dl class="facts">
              {Object.entries(p.credentials).map(([name, masked]) => (
                <>
                  <dt safe>{name}</dt>
                  <dd class="mono" safe>
                    {masked}
                  </dd>
                </>
              ))}
              {p.updated_at ? (
                <>
                  <dt>Saved</dt>
                  <dd>
                    <Ago at={p.updated_at} />
                  </dd>
                </>
              ) : null}
            </dl>
            {writable ? (
              <form method="post" action={`/providers/${p.provider}`}>
                <Csrf token={page.csrf} />
                <FormProblem errors={form.errors} />
                {fields.map((f) =>
                  f.multiline ? (
                    <TextArea
                      form={p.provider}
                      name={`credential_${f.name}`}
                      label={f.label}
                      rows={4}
                      errors={form.errors}
                      hint="Blank keeps what is stored."
                    />
                  ) : (
                    <Field
                      form={p.provider}
                      name={`credential_${f.name}`}
                      label={f.label}
                      type="password"
                      autocomplete="off"
                      errors={form.errors}
                      hint="Blank keeps what is stored."
                    />
                  ),
                )}
                <TextArea
                  form={p.provider}
                  name="settings_json"
                  label="Settings (JSON object)"
                  rows={4}
                  errors={form.errors}
                  values={values}
                  hint="See the README's section on this provider for its settings."
                />
                <button type="submit">Save</button>
              </form>
            ) : null}
            {writable && Object.keys(p.credentials).length > 0 ? (
              <ActionButton
                action={`/providers/${p.provider}/forget`}
                label="Remove credentials"
                tone="danger"
                csrf={page.csrf}
                confirm={`Remove the stored ${p.provider} credentials? Pools on it can no longer reach it.`}
              />
            ) : null}
          </section>
        );
      })}
    </Layout>
  );
}
