// The two halves of a single sign-on: the start (a `state` row with the PKCE verifier and the nonce,
// then the provider's authorization URL) and the callback (the row consumed once, the code exchanged,
// the user found or created, the provider's groups mapped to a role, and the platform's own session
// issued exactly as a password sign-in issues it). Every attempt is audited as `auth.sso_login`.
import { and, eq, lt } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import {
  externalIdentities,
  memberships,
  roles,
  type SsoConfigRow,
  ssoLoginStates,
  users,
} from "#db/schema/index.ts";
import { writeAudit } from "../audit/mutate.ts";
import { issueSession, type Session } from "../auth/session.ts";
import type { RequestContext } from "../context.ts";
import { ssoConfigOf } from "./config.ts";
import { authorizationRequest, exchangeCode, providerConfiguration, type VerifiedIdentity } from "./oidc.ts";

/** How long a user may spend at the provider between the start and the callback. */
const pendingSeconds = 10 * 60;

/** Passwords of accounts created by single sign-on: no hash matches it, so no password signs in. */
const noPassword = "!sso";

export async function startSsoSignIn(
  ctx: RequestContext,
  input: { orgId: string; redirectUri: string; next: string },
): Promise<URL> {
  const sso = await ssoConfigOf(ctx.db, input.orgId);
  if (!sso) throw notFound("single sign-on for that organization");
  const configuration = await providerConfiguration(ctx, sso).catch((error) => {
    ctx.log.warn("identity provider discovery failed", { org_id: input.orgId, error: String(error) });
    throw new AppError("unavailable", "the identity provider cannot be reached; try again shortly");
  });
  const pending = await authorizationRequest(configuration, input.redirectUri, sso.groupsClaim);
  const now = ctx.clock();
  await ctx.db.delete(ssoLoginStates).where(lt(ssoLoginStates.expiresAt, now));
  await ctx.db.insert(ssoLoginStates).values({
    state: pending.state,
    orgId: input.orgId,
    codeVerifier: pending.codeVerifier,
    nonce: pending.nonce,
    next: input.next,
    expiresAt: new Date(now.getTime() + pendingSeconds * 1000),
  });
  return pending.url;
}

type FailureReason = "state_invalid" | "provider_refused" | "no_email" | "deactivated";

function failure(ctx: RequestContext, orgId: string | undefined) {
  return async (reason: FailureReason, message: string, label?: string): Promise<never> => {
    await writeAudit(ctx.db, ctx, {
      action: "auth.sso_login",
      outcome: "failure",
      orgId,
      actorLabel: label,
      details: { reason },
    });
    throw new AppError("unauthenticated", message);
  };
}

/** The role of the first mapping whose group the user has, else the organization's default role. */
export function mappedRole(sso: Pick<SsoConfigRow, "groupRoles" | "defaultRole">, groups: string[]): string {
  const held = new Set(groups);
  return sso.groupRoles.find((m) => held.has(m.group))?.role ?? sso.defaultRole;
}

async function roleId(tx: Executor, orgId: string, name: string): Promise<string> {
  const [role] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.name, name)))
    .limit(1);
  if (!role) throw new AppError("failed_precondition", `the SSO configuration names an unknown role ${name}`);
  return role.id;
}

interface Provisioned {
  user: { id: string; email: string };
  created: boolean;
  deactivated: boolean;
}

/** The user behind the identity: known by (issuer, subject), else by e-mail, else created now. */
async function provision(
  tx: Executor,
  orgId: string,
  identity: VerifiedIdentity & { email: string },
  role: string,
): Promise<Provisioned> {
  const [linked] = await tx
    .select({ id: users.id, email: users.email })
    .from(externalIdentities)
    .innerJoin(users, eq(users.id, externalIdentities.userId))
    .where(
      and(
        eq(externalIdentities.orgId, orgId),
        eq(externalIdentities.issuer, identity.issuer),
        eq(externalIdentities.subject, identity.subject),
      ),
    )
    .limit(1);
  let user = linked;
  let created = false;
  if (!user) {
    [user] = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.email, identity.email))
      .limit(1);
  }
  if (!user) {
    [user] = await tx
      .insert(users)
      .values({ email: identity.email, passwordHash: noPassword })
      .returning({ id: users.id, email: users.email });
    created = true;
  }
  if (!user) throw new Error("the user was not created");
  if (!linked)
    await tx
      .insert(externalIdentities)
      .values({ orgId, userId: user.id, issuer: identity.issuer, subject: identity.subject })
      .onConflictDoNothing();
  const id = await roleId(tx, orgId, role);
  const [member] = await tx
    .select({ roleId: memberships.roleId, deactivatedAt: memberships.deactivatedAt })
    .from(memberships)
    .where(and(eq(memberships.userId, user.id), eq(memberships.orgId, orgId)))
    .limit(1);
  if (member?.deactivatedAt) return { user, created, deactivated: true };
  if (!member) await tx.insert(memberships).values({ userId: user.id, orgId, roleId: id });
  // The mapping is applied at every sign-in: a group removed at the provider takes its role away now.
  else if (member.roleId !== id)
    await tx
      .update(memberships)
      .set({ roleId: id })
      .where(and(eq(memberships.userId, user.id), eq(memberships.orgId, orgId)));
  return { user, created, deactivated: false };
}

export async function finishSsoSignIn(
  ctx: RequestContext,
  input: { callbackUrl: URL },
): Promise<{ session: Session; next: string }> {
  const state = input.callbackUrl.searchParams.get("state") ?? "";
  // Consumed as it is read: a replayed callback (or a second tab) finds nothing.
  const [pending] = state
    ? await ctx.db.delete(ssoLoginStates).where(eq(ssoLoginStates.state, state)).returning()
    : [];
  const fail = failure(ctx, pending?.orgId);
  if (!pending || pending.expiresAt <= ctx.clock())
    return fail("state_invalid", "this sign-in expired or was already used; start again");
  const sso = await ssoConfigOf(ctx.db, pending.orgId);
  if (!sso) return fail("provider_refused", "single sign-on is no longer configured here");
  let identity: VerifiedIdentity;
  try {
    const configuration = await providerConfiguration(ctx, sso);
    identity = await exchangeCode(configuration, input.callbackUrl, pending, sso.groupsClaim);
  } catch (error) {
    ctx.log.warn("single sign-on refused", { org_id: pending.orgId, error: String(error) });
    return fail("provider_refused", "the identity provider's answer was refused; start again");
  }
  const email = identity.email;
  if (!email) return fail("no_email", "the identity provider sent no e-mail address", identity.subject);
  // A break-glass administrator stays an administrator, whatever the provider's groups say.
  const role = sso.breakGlassEmails.includes(email) ? "admin" : mappedRole(sso, identity.groups);
  const outcome = await ctx.db.transaction(async (tx) => {
    const provisioned = await provision(tx, pending.orgId, { ...identity, email }, role);
    if (provisioned.deactivated) return undefined;
    if (provisioned.created)
      await writeAudit(tx, ctx, {
        action: "user.provision",
        outcome: "success",
        orgId: pending.orgId,
        actorLabel: email,
        actorId: provisioned.user.id,
        target: { type: "user", id: provisioned.user.id },
        details: { via: "oidc", role },
      });
    const session = await issueSession(ctx, tx, provisioned.user, pending.orgId);
    await writeAudit(tx, ctx, {
      action: "auth.sso_login",
      outcome: "success",
      orgId: pending.orgId,
      actorLabel: email,
      actorId: provisioned.user.id,
      details: { issuer: identity.issuer, groups: identity.groups, role },
    });
    return { session, next: pending.next };
  });
  // Written after the transaction: the embedded database has one connection, which the transaction holds.
  return outcome ?? fail("deactivated", "this account is deactivated here", email);
}
