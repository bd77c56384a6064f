import type { PendingInvitation } from "#services/auth/invitations.ts";
import type { Me } from "#services/auth/me.ts";
import type { TotpSetup } from "#services/auth/totp.ts";
import { Layout } from "../_shared/layout.tsx";
import type { PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState } from "../_shared/parts/form.tsx";
import { ActionButton, Badge, PageHeader } from "../_shared/parts/list.tsx";

export interface AccountPageProps {
  page: PageInfo;
  me: Me;
  /** A set-up in progress: the secret and its QR code (an SVG data URL rendered on the server). */
  setup?: (TotpSetup & { qr: string }) | undefined;
  form?: FormState;
  /** The password form came back with problems. */
  passwordForm?: FormState | undefined;
  notice?: string | undefined;
  /** Pending invitations to other organizations (shown by the page itself, not after a TOTP form). */
  invitations?: PendingInvitation[] | undefined;
}

export function AccountPage({
  page,
  me,
  setup,
  form = {},
  passwordForm,
  notice,
  invitations = [],
}: AccountPageProps) {
  const organization = page.organizations.find((o) => o.active)?.name ?? me.org_id;
  return (
    <Layout title="Account" page={page}>
      <PageHeader title="Account and two-factor sign-in" />
      {notice ? (
        <p class="notice" role="status" safe>
          {notice}
        </p>
      ) : null}
      <section class="card">
        <dl class="facts">
          <dt>E-mail</dt>
          <dd safe>{me.email}</dd>
          <dt>Organization</dt>
          <dd safe>{organization}</dd>
          <dt>Role</dt>
          <dd safe>{me.role}</dd>
          <dt>Two-factor sign-in</dt>
          <dd>
            <Badge state={me.totp_enabled ? "on" : "off"} />
          </dd>
        </dl>
      </section>
      <PasswordForm csrf={page.csrf} email={me.email} state={passwordForm ?? {}} />
      {invitations.length > 0 ? <Invitations invitations={invitations} csrf={page.csrf} /> : null}
      {me.totp_enabled ? (
        <section class="card">
          <h2>Turn two-factor sign-in off</h2>
          <form
            method="post"
            action="/account/totp/disable"
            data-confirm="Turn two-factor sign-in off? Your password alone will then sign you in."
          >
            <Csrf token={page.csrf} />
            <CodeField label="A current code from your authenticator" form={form} />
            <button type="submit" class="danger">
              Turn off
            </button>
          </form>
        </section>
      ) : setup ? (
        <section class="card">
          <h2>Scan this code with your authenticator app</h2>
          <img class="qr" src={setup.qr} alt="QR code of the two-factor secret" width="220" height="220" />
          <p>
            Or enter the secret by hand:{" "}
            <code id="totp-secret" safe>
              {setup.secret}
            </code>
          </p>
          <form method="post" action="/account/totp/verify">
            <Csrf token={page.csrf} />
            {/* Shown again if the code is wrong; verification reads the secret stored on the server. */}
            <input type="hidden" name="secret" value={setup.secret} />
            <input type="hidden" name="otpauth_url" value={setup.otpauth_url} />
            <CodeField label="The code your app shows now" form={form} autofocus />
            <button type="submit">Verify and turn on</button>
          </form>
        </section>
      ) : (
        <section class="card">
          <h2>Two-factor sign-in</h2>
          <p>
            With it on, signing in asks for a code from an authenticator app (any app speaking TOTP) after
            your password.
          </p>
          <form method="post" action="/account/totp/setup">
            <Csrf token={page.csrf} />
            <button type="submit">Set up two-factor sign-in</button>
          </form>
        </section>
      )}
    </Layout>
  );
}

/**
 * Changing the password (POST /account/password, the service of POST /auth/password): the current one
 * proves it is you; every other session of yours ends, in every organization.
 */
function PasswordForm({ csrf, email, state }: { csrf: string; email: string; state: FormState }) {
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <form method="post" action="/account/password" class="narrow-form">
        <Csrf token={csrf} />
        {/* Lets a password manager file the new password under the right account. */}
        <input type="hidden" name="username" value={email} autocomplete="username" />
        <FormProblem errors={state.errors} />
        <Field
          form="password"
          name="current_password"
          label="Current password"
          type="password"
          autocomplete="current-password"
          required
          errors={state.errors}
        />
        <Field
          form="password"
          name="new_password"
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          errors={state.errors}
          hint="At least 12 characters (or the PASSWORD_MIN_LENGTH this platform was started with)."
        />
        <Field
          form="password"
          name="confirm_password"
          label="New password again"
          type="password"
          autocomplete="new-password"
          required
          errors={state.errors}
        />
        <p class="hint">Your other sessions, in every organization, are signed out; this one stays.</p>
        <button type="submit">Change password</button>
      </form>
    </section>
  );
}

/** Invitations to other organizations, each with its Accept and Decline forms. */
function Invitations({ invitations, csrf }: { invitations: PendingInvitation[]; csrf: string }) {
  return (
    <section class="card">
      <h2>Invitations</h2>
      <ul>
        {invitations.map((i) => (
          <li>
            <span safe>{i.org_name}</span> invites you as <strong safe>{i.role}</strong> (until{" "}
            <time datetime={i.expires_at} safe>
              {i.expires_at.slice(0, 10)}
            </time>
            )
            <ActionButton action={`/account/invitations/${i.id}/accept`} label="Accept" csrf={csrf} />
            <ActionButton
              action={`/account/invitations/${i.id}/decline`}
              label="Decline"
              tone="secondary"
              csrf={csrf}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The form's problem and the field of a code from the authenticator app. */
function CodeField({ label, form, autofocus }: { label: string; form: FormState; autofocus?: boolean }) {
  return (
    <>
      <FormProblem errors={form.errors} />
      <Field
        name="code"
        label={label}
        inputmode="numeric"
        autocomplete="one-time-code"
        required
        autofocus={autofocus}
        errors={form.errors}
      />
    </>
  );
}
