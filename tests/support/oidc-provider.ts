// A real OpenID provider for tests: panva's oidc-provider (OpenID certified) on a local port, with
// - the platform as a confidential client (authorization code + PKCE, client_secret_post),
// - a machine client allowed the client-credentials grant, whose access tokens are JWTs for a resource,
// - accounts with `email` and `groups` the test can change between sign-ins,
// - rotate(): a new signing key (the old one gone from the JWKS), as a provider's key rotation does.
// Its own login and consent pages are the library's development interactions; `signInThrough` drives
// them with fetch (a cookie jar of its own), the browser test clicks through them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import Provider, { type Configuration } from "oidc-provider";

export interface TestAccount {
  email: string;
  groups: string[];
}

export const platformClient = { id: "llm-platform", secret: "platform-client-secret-0123456789abcdef" };
export const machineClient = { id: "ci-robot", secret: "robot-client-secret-0123456789abcdef" };
export const apiAudience = "https://api.llm-platform.test";

export interface TestProvider {
  issuer: string;
  accounts: Map<string, TestAccount>;
  /** A new signing key; the JWKS no longer holds the previous one. */
  rotate(): Promise<void>;
  /** The kid of the key tokens are signed with now. */
  kid(): string;
  /** A JWT signed with the provider's current key (a token the provider could have issued). */
  sign(claims: Record<string, unknown>): Promise<string>;
  /**
   * Answers the next token request with `body` instead of the provider's own answer (then the provider
   * answers again): how a test hands the platform an ID token the provider would never issue.
   */
  answerNextTokenRequest(body: Record<string, unknown>): void;
  /** A client-credentials access token of the machine client, for `resource` (default: the API). */
  machineToken(resource?: string): Promise<string>;
  close(): Promise<void>;
}

async function signingKey(kid: string) {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

function configuration(
  accounts: Map<string, TestAccount>,
  redirectUris: string[],
  keys: Awaited<ReturnType<typeof signingKey>>[],
): Configuration {
  return {
    clients: [
      {
        client_id: platformClient.id,
        client_secret: platformClient.secret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
      {
        client_id: machineClient.id,
        client_secret: machineClient.secret,
        redirect_uris: [],
        grant_types: ["client_credentials"],
        response_types: [],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys },
    cookies: { keys: ["test-cookie-key-0123456789"] },
    scopes: ["openid", "email", "profile", "groups", "api"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], groups: ["groups"], profile: ["name"] },
    pkce: { required: () => true },
    // Short enough that a platform clock five minutes ahead sees an expired ID token.
    ttl: {
      IdToken: 60,
      AccessToken: 600,
      ClientCredentials: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: "api",
          audience: resource,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } },
        }),
      },
    },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: account.email, email_verified: true, groups: account.groups }),
      };
    },
  };
}

export async function startTestProvider(redirectUris: string[]): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  let keys = [await signingKey("key-1")];
  let provider: Provider | undefined;
  let nextTokenAnswer: Record<string, unknown> | undefined;
  // One port for the provider's life: a rotation swaps the Provider behind it.
  const server: Server = createServer((req, res) => {
    if (nextTokenAnswer && req.method === "POST" && req.url === "/token") {
      const body = JSON.stringify(nextTokenAnswer);
      nextTokenAnswer = undefined;
      req.resume();
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(body);
      return;
    }
    if (!provider) {
      res.statusCode = 503;
      res.end();
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const build = () => {
    provider = new Provider(issuer, configuration(accounts, redirectUris, keys));
  };
  build();
  return {
    issuer,
    accounts,
    async rotate() {
      keys = [await signingKey(`key-${Date.now()}`)];
      build();
    },
    kid: () => keys[0]?.kid ?? "",
    async sign(claims) {
      const jwk = keys[0];
      if (!jwk) throw new Error("no signing key");
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: jwk.kid, typ: "JWT" })
        .sign(await importJWK(jwk, "RS256"));
    },
    answerNextTokenRequest(body) {
      nextTokenAnswer = body;
    },
    async machineToken(resource = apiAudience) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${btoa(`${machineClient.id}:${machineClient.secret}`)}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope: "api", resource }),
      });
      const body = (await res.json()) as { access_token?: string; error?: string };
      if (!body.access_token) throw new Error(`client credentials refused: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A minimal cookie jar per host:port, enough for the provider's and the dashboard's cookies. */
class Jar {
  private readonly cookies = new Map<string, Map<string, string>>();
  header(url: URL): string {
    return [...(this.cookies.get(url.host) ?? new Map())].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  store(url: URL, response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (!pair || at < 0) continue;
      const jar = this.cookies.get(url.host) ?? new Map<string, string>();
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1));
      this.cookies.set(url.host, jar);
    }
  }
}

/**
 * Follows a sign-in from the dashboard's start URL through the provider's login and consent (as
 * `accountId`) to the callback URL the provider sends back, without calling it: the test decides
 * how (and how often) the callback is called. `dashboard` answers the dashboard's requests.
 */
export async function signInThrough(
  startUrl: string,
  dashboard: (request: Request) => Promise<Response>,
  accountId: string,
): Promise<URL> {
  const jar = new Jar();
  const start = await dashboard(new Request(startUrl));
  if (start.status !== 303) throw new Error(`the start answered ${start.status}: ${await start.text()}`);
  let url = new URL(start.headers.get("location") ?? "");
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    if (url.pathname === "/login/sso/callback") return url;
    const response = await fetch(url, {
      method: body ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(url),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body,
    });
    jar.store(url, response);
    body = undefined;
    const location = response.headers.get("location");
    if (location) {
      url = new URL(location, url);
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt)
      throw new Error(`unexpected page from the provider (${response.status}): ${html.slice(0, 300)}`);
    url = new URL(action, url);
    body = new URLSearchParams(
      prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt },
    );
  }
  throw new Error("too many hops");
}
