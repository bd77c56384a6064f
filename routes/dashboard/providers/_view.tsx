import type { ProviderConfigView } from "#services/provider-configs/config.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, Select, TextArea } from "../_shared/parts/form.tsx";
import { ActionButton, Ago, Badge, PageHeader } from "../_shared/parts/list.tsx";
import {
  type CredentialField,
  docsHref,
  type ProviderForm,
  providerForms,
  type SettingField,
  settingText,
} from "./_forms.ts";

export interface ProvidersPageProps {
  page: PageInfo;
  providers: ProviderConfigView[];
  /** The provider whose form was posted with problems, and those problems. */
  failed?: { provider: string; form: FormState } | undefined;
  saved?: string | undefined;
}

/** Ready: it needs nothing saved. Configured: something was saved. Otherwise not configured. */
export function providerState(p: ProviderConfigView, form: ProviderForm | undefined): string {
  if (form && !form.needsConfiguration) return "ready";
  return p.configured ? "configured" : "not configured";
}

export function ProvidersPage({ page, providers, failed, saved }: ProvidersPageProps) {
  const writable = can(page, "providers:write");
  return (
    <Layout title="Providers" page={page}>
      <PageHeader title="Provider configuration" />
      <p class="muted">
        Credentials are encrypted at rest and never shown again after saving: only masked. A pool names its
        provider; nosana becomes the default provider once its key is saved. Every setting is described in{" "}
        <a href={docsHref(undefined)}>the providers guide</a>.
      </p>
      {saved ? (
        <p class="notice" role="status">
          Saved <strong safe>{saved}</strong>.
        </p>
      ) : null}
      {providers.map((p) => (
        <ProviderCard
          p={p}
          page={page}
          writable={writable}
          failed={failed?.provider === p.provider ? failed.form : undefined}
        />
      ))}
    </Layout>
  );
}

function ProviderCard({
  p,
  page,
  writable,
  failed,
}: {
  p: ProviderConfigView;
  page: PageInfo;
  writable: boolean;
  failed: FormState | undefined;
}) {
  const form = providerForms[p.provider];
  const stored = Object.fromEntries(
    (form?.settings ?? []).map((f) => [`setting_${f.name}`, settingText(p.settings[f.name])]),
  );
  const state: FormState = {
    errors: failed?.errors,
    values: { ...stored, settings_json: JSON.stringify(p.settings, null, 2), ...failed?.values },
  };
  const hasFields = !form || form.settings.length + form.credentials.length > 0;
  return (
    <section class="card" id={`provider-${p.provider}`} aria-labelledby={`provider-${p.provider}-title`}>
      <h2 id={`provider-${p.provider}-title`}>
        <span>{p.provider}</span> <Badge state={providerState(p, form)} />
      </h2>
      {form ? (
        <p>
          <span safe>{form.summary}</span>{" "}
          <a href={docsHref(form)} data-docs safe>
            {`How to set up ${p.provider}`}
          </a>
        </p>
      ) : null}
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
      {writable && hasFields ? (
        <form method="post" action={`/providers/${p.provider}`}>
          <Csrf token={page.csrf} />
          <FormProblem errors={state.errors} />
          {(form?.credentials ?? []).map((f) => (
            <CredentialInput provider={p.provider} field={f} state={state} />
          ))}
          {form ? (
            <div class="grid2">
              {form.settings.map((f) => (
                <SettingInput provider={p.provider} field={f} state={state} />
              ))}
            </div>
          ) : (
            <TextArea
              form={p.provider}
              name="settings_json"
              label="Settings (JSON object)"
              rows={4}
              {...state}
            />
          )}
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
}

function CredentialInput({
  provider,
  field,
  state,
}: {
  provider: string;
  field: CredentialField;
  state: FormState;
}) {
  const common = {
    form: provider,
    name: `credential_${field.name}`,
    label: field.label,
    errors: state.errors,
    hint: "Blank keeps what is stored.",
  };
  return field.multiline ? (
    <TextArea {...common} rows={4} />
  ) : (
    <Field {...common} type="password" autocomplete="off" />
  );
}

function SettingInput({
  provider,
  field,
  state,
}: {
  provider: string;
  field: SettingField;
  state: FormState;
}) {
  const common = {
    form: provider,
    name: `setting_${field.name}`,
    label: field.label,
    hint: field.hint,
    ...state,
  };
  switch (field.kind) {
    case "choice":
      return (
        <Select
          {...common}
          blank="default"
          choices={(field.choices ?? []).map((c) => ({ value: c, label: c }))}
        />
      );
    case "json":
      return <TextArea {...common} rows={2} placeholder={field.placeholder} />;
    case "number":
      return <Field {...common} inputmode="decimal" placeholder={field.placeholder} />;
    default:
      return (
        <Field {...common} type={field.kind === "url" ? "url" : "text"} placeholder={field.placeholder} />
      );
  }
}
