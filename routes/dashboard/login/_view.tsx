import { Layout } from "../_shared/layout.tsx";
import { Alert } from "../_shared/parts/form.tsx";

/** An organization whose members sign in through its identity provider. */
export interface SsoButton {
  orgId: string;
  displayName: string;
}

export interface LoginProps {
  email?: string | undefined;
  /** "Sign in with <name>" buttons, one per organization with single sign-on. */
  sso?: SsoButton[] | undefined;
  error?: string | undefined;
  next?: string | undefined;
  csrf: string;
}

/** Step one: e-mail and password. */
export function LoginPage({ email, error, next, csrf, sso }: LoginProps) {
  return (
    <Layout title="Sign in" csrf={csrf}>
      <section class="card narrow">
        <h1>Sign in</h1>
        <Alert message={error} />
        <form method="post" action="/login">
          <input type="hidden" name="next" value={next ?? "/"} />
          <input type="hidden" name="_csrf" value={csrf} />
          <label>
            E-mail
            <input type="email" name="email" required autocomplete="username" value={email ?? ""} autofocus />
          </label>
          <label>
            Password
            <input type="password" name="password" required autocomplete="current-password" />
          </label>
          <button type="submit">Sign in</button>
        </form>
        {sso && sso.length > 0 ? (
          <ul class="sso">
            {sso.map((b) => (
              <li>
                <a class="button" href={`/login/sso/${b.orgId}?next=${encodeURIComponent(next ?? "/")}`} safe>
                  Sign in with {b.displayName}
                </a>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </Layout>
  );
}

/** Step two, when two-factor sign-in is on: the code alone (the password was checked in step one). */
export function SecondFactorPage({ error, next, csrf }: Omit<LoginProps, "email">) {
  return (
    <Layout title="Two-factor sign-in" csrf={csrf}>
      <section class="card narrow">
        <h1>Two-factor sign-in</h1>
        <p>Open your authenticator app and enter the 6-digit code it shows for the LLM platform.</p>
        <Alert message={error} />
        <form method="post" action="/login/verify">
          <input type="hidden" name="next" value={next ?? "/"} />
          <input type="hidden" name="_csrf" value={csrf} />
          <label>
            Authenticator code
            <input
              type="text"
              name="totp_code"
              required
              inputmode="numeric"
              pattern="[0-9]{6}"
              maxlength="6"
              autocomplete="one-time-code"
              autofocus
            />
          </label>
          <button type="submit">Verify</button>
        </form>
        <p>
          <a href="/login">Start again</a>
        </p>
      </section>
    </Layout>
  );
}
