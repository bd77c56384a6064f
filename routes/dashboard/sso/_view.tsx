import type { ScimTokenViewT, SsoConfigViewT } from "#services/sso/requests.ts";
import type { FormValues } from "../_shared/form.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, TextArea } from "../_shared/parts/form.tsx";
import { ActionButton, Ago, PageHeader } from "../_shared/parts/list.tsx";

export interface SsoPageProps {
  page: PageInfo;
  config: SsoConfigViewT | undefined;
  tokens: ScimTokenViewT[];
  form: FormState & { values: FormValues };
  /** The dashboard's address, so the page can show the exact redirect URI to register. */
  redirectUri: string;
  saved?: boolean | undefined;
  /** A SCIM token just made: shown on this page only. */
  newToken?: string | undefined;
}

export function SsoPage({ page, config, tokens, form, redirectUri, saved, newToken }: SsoPageProps) {
  const writable = can(page, "sso:write");
  return (
    <Layout title="Single sign-on" page={page}>
      <PageHeader title="Single sign-on" />
      <p class="muted">
        Members sign in through your identity provider (OpenID Connect). Register this redirect URI at the
        provider: <code safe>{redirectUri}</code>
      </p>
      {saved ? (
        <p class="notice" role="status">
          Saved.
        </p>
      ) : null}
      <section class="card">
        <h2>Identity provider</h2>
        {writable ? <IdentityProviderForm page={page} config={config} form={form} /> : null}
        {writable && config ? (
          <ActionButton
            action="/sso/remove"
            label="Remove single sign-on"
            tone="danger"
            csrf={page.csrf}
            confirm="Remove single sign-on? Members sign in with passwords again; service accounts stop working."
          />
        ) : null}
      </section>
      <ScimSection page={page} tokens={tokens} newToken={newToken} writable={writable} />
    </Layout>
  );
}

/** The identity provider's settings, as a form (its fields keep what was typed when it comes back). */
function IdentityProviderForm({ page, config, form }: Pick<SsoPageProps, "page" | "config" | "form">) {
  const off = form.values.password_login_disabled === "on";
  return (
    <form method="post" action="/sso">
      <Csrf token={page.csrf} />
      <FormProblem errors={form.errors} />
      <Field name="display_name" label="Name on the sign-in button" required {...form} />
      <Field
        name="issuer_url"
        label="Issuer URL"
        required
        hint="Keycloak: https://host/realms/<realm>; Entra ID: https://login.microsoftonline.com/<tenant>/v2.0"
        {...form}
      />
      <Field name="client_id" label="Client ID" required {...form} />
      <Field
        name="client_secret"
        label="Client secret"
        type="password"
        autocomplete="off"
        hint={config?.client_secret_set ? "Blank keeps what is stored." : "Required."}
        {...form}
      />
      <Field
        name="groups_claim"
        label="Groups claim"
        hint="The ID token claim listing the user's groups"
        {...form}
      />
      <TextArea
        name="group_roles"
        label="Groups to roles"
        rows={4}
        hint='One "group = role" a line; the first line whose group the user has decides.'
        {...form}
      />
      <Field
        name="default_role"
        label="Default role"
        hint="For users none of whose groups is listed"
        {...form}
      />
      <TextArea
        name="service_accounts"
        label="Service accounts"
        rows={3}
        hint='One "client id = role" a line: clients whose client-credentials tokens call the API.'
        {...form}
      />
      <Field
        name="service_audience"
        label="Service token audience"
        hint="The aud their tokens carry"
        {...form}
      />
      <div class="field">
        <label class="check">
          <input type="checkbox" name="password_login_disabled" checked={off} />
          <span>Turn password sign-in off (except for the break-glass administrators)</span>
        </label>
      </div>
      <Field
        name="break_glass_emails"
        label="Break-glass administrators"
        hint="E-mails of administrators who keep password sign-in, comma-separated"
        {...form}
      />
      <button type="submit">Save</button>
    </form>
  );
}

/** SCIM tokens: the one just made (shown once), the list, and the button that makes another. */
function ScimSection({
  page,
  tokens,
  newToken,
  writable,
}: Pick<SsoPageProps, "page" | "tokens" | "newToken"> & { writable: boolean }) {
  return (
    <section class="card">
      <h2>SCIM provisioning</h2>
      <p class="muted">
        Your identity provider creates, changes and deactivates members through SCIM 2.0 at the filtration
        gateway's <code>/scim/v2</code> (default port 8000), with a token made here.
      </p>
      {newToken ? (
        <p class="notice" role="status">
          Your new SCIM token (shown once):{" "}
          <code class="mono" safe>
            {newToken}
          </code>
        </p>
      ) : null}
      <ul>
        {tokens.map((tk) => (
          <li>
            <code safe>{tk.prefix}</code> made <Ago at={tk.created_at} />
            {tk.revoked_at ? " (revoked)" : ""}
          </li>
        ))}
      </ul>
      {writable ? <ActionButton action="/sso/scim-token" label="Make a SCIM token" csrf={page.csrf} /> : null}
    </section>
  );
}
