import { Layout } from "./layout.tsx";

export interface LoginProps {
  email?: string | undefined;
  error?: string | undefined;
  next?: string | undefined;
  csrf: string;
}

export function LoginPage({ email, error, next, csrf }: LoginProps) {
  return (
    <Layout title="Sign in" csrf={csrf}>
      <section class="card narrow">
        <h1>Sign in</h1>
        {error ? (
          <p class="error" role="alert" safe>
            {error}
          </p>
        ) : null}
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
          <label>
            Authenticator code (if two-factor sign-in is on)
            <input
              type="text"
              name="totp_code"
              inputmode="numeric"
              pattern="[0-9]{6}"
              maxlength="6"
              autocomplete="one-time-code"
            />
          </label>
          <button type="submit">Sign in</button>
        </form>
      </section>
    </Layout>
  );
}
