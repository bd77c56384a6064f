// Sign-in through an organization's OpenID Connect provider: the authorization code flow with PKCE,
// done by openid-client (certified; it checks `state`, `nonce`, the issuer, the audience, expiry and,
// with non-repudiation checks on, the ID token's signature against the provider's JWKS). Discovery runs
// at each sign-in, so a provider that rotated its signing keys or moved an endpoint is followed at once.
import * as client from "openid-client";
import type { SsoConfigRow } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { open } from "../crypto/secret-box.ts";

/** What the callback reads from a verified ID token. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  groups: string[];
}

/**
 * Plain http is allowed only for a provider on the loopback interface (a provider run beside the
 * platform, or in tests); anything else must be https, as openid-client insists by default.
 */
function isLoopback(url: URL): boolean {
  return url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]";
}

/** The provider's metadata and our client, with the platform's clock (so tests can move it). */
export async function providerConfiguration(
  ctx: Pick<AppContext, "config" | "clock">,
  sso: Pick<SsoConfigRow, "issuerUrl" | "clientId" | "clientSecretSealed">,
): Promise<client.Configuration> {
  const issuer = new URL(sso.issuerUrl);
  const secret = open(ctx.config.encryptionKey, sso.clientSecretSealed);
  const skewSeconds = Math.round((ctx.clock().getTime() - Date.now()) / 1000);
  const configuration = await client.discovery(
    issuer,
    sso.clientId,
    { [client.clockSkew]: skewSeconds },
    client.ClientSecretPost(secret),
    {
      execute: isLoopback(issuer)
        ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
        : [client.enableNonRepudiationChecks],
      timeout: 10,
    },
  );
  return configuration;
}

export interface PendingSignIn {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export async function authorizationRequest(
  configuration: client.Configuration,
  redirectUri: string,
  groupsClaim: string,
): Promise<PendingSignIn> {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const scopes = ["openid", "email", "profile"];
  // Providers (Keycloak with a group mapper, oidc-provider) send groups under a scope of that name.
  if (groupsClaim === "groups") scopes.push("groups");
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: scopes.join(" "),
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { url, state, nonce, codeVerifier };
}

/** Strings of a claim that should be a list of group names (a single string counts as one). */
function groupsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((g): g is string => typeof g === "string");
}

/** Exchanges the code (with its PKCE verifier) and verifies the ID token; any failure throws. */
export async function exchangeCode(
  configuration: client.Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
  groupsClaim: string,
): Promise<VerifiedIdentity> {
  const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error("the provider returned no ID token");
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : undefined;
  return { issuer: claims.iss, subject: claims.sub, email, groups: groupsOf(claims[groupsClaim]) };
}
