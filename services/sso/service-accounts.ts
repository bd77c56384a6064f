// Machines that sign in without a password: a client of the organization's identity provider gets a
// token by the client-credentials flow and presents it as `Authorization: Bearer`. The token is
// verified by jose against the provider's JWKS (found by discovery; a key the cached set lacks makes
// jose fetch the set again, so a rotated key is followed), with the configured issuer and audience, and
// the client acts with the role the organization mapped to its client id.
import { and, eq } from "drizzle-orm";
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify } from "jose";
import * as client from "openid-client";
import { AppError } from "#core/errors.ts";
import { roles, serviceAccounts, ssoConfigs } from "#db/schema/index.ts";
import { writeAudit } from "../audit/mutate.ts";
import type { Actor, AppContext } from "../context.ts";
import { isPermission, type Permission } from "../permissions.ts";

type JwksGetter = ReturnType<typeof createRemoteJWKSet>;

/** Key sets by issuer, found once by discovery and kept for the process (jose refreshes their keys). */
const keySets = new Map<string, Promise<JwksGetter>>();

function keySetOf(issuer: string, clientId: string): Promise<JwksGetter> {
  let found = keySets.get(issuer);
  if (!found) {
    const url = new URL(issuer);
    const loopback = url.hostname === "127.0.0.1" || url.hostname === "localhost";
    found = client
      .discovery(url, clientId, undefined, client.None(), {
        execute: loopback ? [client.allowInsecureRequests] : [],
        timeout: 10,
      })
      .then((configuration) => {
        const jwksUri = configuration.serverMetadata().jwks_uri;
        if (!jwksUri) throw new Error("the provider publishes no jwks_uri");
        // A token naming a key the set lacks refetches it at most once a second: a rotation at the
        // provider is followed within a second, and a flood of unknown keys costs it one fetch a second.
        return createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: 1_000 });
      });
    found.catch(() => keySets.delete(issuer));
    keySets.set(issuer, found);
  }
  return found;
}

/** Tokens already audited in this process, so each is recorded once, not on every request. */
const audited = new Set<string>();
const auditedLimit = 10_000;

const refused = () => new AppError("unauthenticated", "invalid token");

/** The client a token was issued to: `client_id` (RFC 9068), else `azp`, else `sub`. */
function clientOf(claims: JWTPayload): string | undefined {
  for (const value of [claims.client_id, claims.azp, claims.sub]) if (typeof value === "string") return value;
  return undefined;
}

const unverifiedClaims = (token: string): JWTPayload | undefined => {
  try {
    return decodeJwt(token);
  } catch {
    return undefined;
  }
};

/** A client-credentials token's actor; anything not verified is `unauthenticated`. */
export async function actorFromServiceToken(
  ctx: Pick<AppContext, "db" | "clock" | "log">,
  token: string,
): Promise<Actor> {
  // Read unverified only to find which provider and which account to verify it against.
  const claims = unverifiedClaims(token);
  const issuer = typeof claims?.iss === "string" ? claims.iss.replace(/\/+$/, "") : undefined;
  const clientId = claims && clientOf(claims);
  if (!issuer || !clientId) throw refused();
  const [account] = await ctx.db
    .select({
      id: serviceAccounts.id,
      orgId: serviceAccounts.orgId,
      role: roles.name,
      permissions: roles.permissions,
      audience: ssoConfigs.serviceAudience,
      issuerUrl: ssoConfigs.issuerUrl,
      providerClientId: ssoConfigs.clientId,
    })
    .from(serviceAccounts)
    .innerJoin(ssoConfigs, eq(ssoConfigs.orgId, serviceAccounts.orgId))
    .innerJoin(roles, eq(roles.id, serviceAccounts.roleId))
    .where(and(eq(serviceAccounts.clientId, clientId), eq(ssoConfigs.issuerUrl, issuer)))
    .limit(1);
  if (!account) throw refused();
  const label = `service-account:${clientId}`;
  const record = async (outcome: "success" | "failure", reason?: string) => {
    const key = `${outcome}:${claims?.jti ?? token.slice(-32)}`;
    if (audited.has(key)) return;
    if (audited.size >= auditedLimit) audited.clear();
    audited.add(key);
    await writeAudit(
      ctx.db,
      { actor: undefined, ip: undefined, userAgent: undefined, requestId: "" },
      {
        action: "auth.service_account",
        outcome,
        orgId: account.orgId,
        actorId: account.id,
        actorLabel: label,
        details: reason ? { reason } : { role: account.role },
      },
    );
  };
  if (!account.audience) {
    await record("failure", "no_audience_configured");
    throw refused();
  }
  try {
    const keys = await keySetOf(account.issuerUrl, account.providerClientId);
    await jwtVerify(token, keys, {
      issuer: [account.issuerUrl, `${account.issuerUrl}/`],
      audience: account.audience,
      currentDate: ctx.clock(),
      algorithms: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"],
    });
  } catch (error) {
    ctx.log.info("service-account token refused", { client_id: clientId, error: String(error) });
    await record("failure", "token_invalid");
    throw refused();
  }
  await record("success");
  return {
    userId: account.id,
    email: label,
    orgId: account.orgId,
    role: account.role,
    permissions: new Set(account.permissions.filter(isPermission) as Permission[]),
    machine: "service_account",
  };
}

/** A token the platform signed itself (HS256) rather than an identity provider's. */
export function isPlatformToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).alg === "HS256";
  } catch {
    return true;
  }
}
