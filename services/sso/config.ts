// An organization's identity provider, as its administrators configure it (PUT/GET/DELETE /admin/sso
// and the dashboard's SSO page). The client secret is sealed like provider credentials; the mapped
// roles and service accounts must name roles of the organization; turning passwords off needs at least
// one break-glass administrator, so the organization can still be reached when the provider is down.
import { and, eq, inArray } from "drizzle-orm";
import { invalid, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import {
  memberships,
  roles,
  type SsoConfigRow,
  serviceAccounts,
  ssoConfigs,
  users,
} from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { normaliseEmail } from "../auth/login.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { seal } from "../crypto/secret-box.ts";
import type { PutSsoInput, SsoConfigViewT } from "./requests.ts";

/** The dashboard's callback; the provider's redirect URI is the dashboard's address followed by it. */
export const callbackPath = "/login/sso/callback";

export async function ssoConfigOf(db: Executor, orgId: string): Promise<SsoConfigRow | undefined> {
  const [row] = await db.select().from(ssoConfigs).where(eq(ssoConfigs.orgId, orgId)).limit(1);
  return row;
}

async function viewOf(db: Executor, row: SsoConfigRow): Promise<SsoConfigViewT> {
  const accounts = await db
    .select({ client_id: serviceAccounts.clientId, role: roles.name })
    .from(serviceAccounts)
    .innerJoin(roles, eq(roles.id, serviceAccounts.roleId))
    .where(eq(serviceAccounts.orgId, row.orgId))
    .orderBy(serviceAccounts.clientId);
  return {
    display_name: row.displayName,
    issuer_url: row.issuerUrl,
    client_id: row.clientId,
    client_secret_set: row.clientSecretSealed.length > 0,
    groups_claim: row.groupsClaim,
    group_roles: row.groupRoles,
    default_role: row.defaultRole,
    service_audience: row.serviceAudience,
    service_accounts: accounts,
    password_login_disabled: row.passwordLoginDisabled,
    break_glass_emails: row.breakGlassEmails,
    redirect_path: callbackPath,
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function getSso(ctx: RequestContext): Promise<SsoConfigViewT> {
  const row = await ssoConfigOf(ctx.db, actorOf(ctx).orgId);
  if (!row) throw notFound("SSO configuration");
  return viewOf(ctx.db, row);
}

function issuerProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an http(s) URL";
  if (parsed.search || parsed.hash) return "must have no query or fragment";
  return undefined;
}

/** Looks the role names up in the organization (an unknown one is a 400 on its field); answers name → id. */
async function roleIds(tx: Executor, orgId: string, wanted: { field: string; role: string }[]) {
  const names = [...new Set(wanted.map((w) => w.role))];
  const rows = names.length
    ? await tx
        .select({ id: roles.id, name: roles.name })
        .from(roles)
        .where(and(eq(roles.orgId, orgId), inArray(roles.name, names)))
    : [];
  const ids = new Map(rows.map((r) => [r.name, r.id]));
  for (const w of wanted) if (!ids.has(w.role)) throw invalid(w.field, `unknown role ${w.role}`);
  return (name: string): string => {
    const id = ids.get(name);
    if (!id) throw new Error(`role ${name} was not looked up`);
    return id;
  };
}

/** Break-glass e-mails must be administrators of the organization: they are its way back in. */
async function checkBreakGlass(tx: Executor, orgId: string, emails: string[], passwordOff: boolean) {
  if (passwordOff && emails.length === 0)
    throw invalid("break_glass_emails", "name at least one administrator before turning passwords off");
  if (emails.length === 0) return;
  const admins = await tx
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .where(and(eq(memberships.orgId, orgId), eq(roles.name, "admin"), inArray(users.email, emails)));
  const found = new Set(admins.map((a) => a.email));
  emails.forEach((email, i) => {
    if (!found.has(email)) throw invalid(`break_glass_emails.${i}`, "is not an administrator here");
  });
}

export async function putSso(ctx: RequestContext, input: PutSsoInput): Promise<SsoConfigViewT> {
  const { orgId } = actorOf(ctx);
  const problem = issuerProblem(input.issuer_url);
  if (problem) throw invalid("issuer_url", problem);
  return mutate(ctx, "sso.update", { type: "sso_config" }, async (tx) => {
    const existing = await ssoConfigOf(tx, orgId);
    if (!existing && !input.client_secret) throw invalid("client_secret", "is required the first time");
    const groupRoles = input.group_roles ?? existing?.groupRoles ?? [];
    const defaultRole = input.default_role ?? existing?.defaultRole ?? "viewer";
    const accounts = input.service_accounts;
    const roleIdOf = await roleIds(tx, orgId, [
      { field: "default_role", role: defaultRole },
      ...groupRoles.map((g, i) => ({ field: `group_roles.${i}.role`, role: g.role })),
      ...(accounts ?? []).map((a, i) => ({ field: `service_accounts.${i}.role`, role: a.role })),
    ]);
    const breakGlass = (input.break_glass_emails ?? existing?.breakGlassEmails ?? []).map(normaliseEmail);
    const passwordOff = input.password_login_disabled ?? existing?.passwordLoginDisabled ?? false;
    await checkBreakGlass(tx, orgId, breakGlass, passwordOff);
    const values = {
      displayName: input.display_name,
      issuerUrl: input.issuer_url.replace(/\/+$/, ""),
      clientId: input.client_id,
      clientSecretSealed: input.client_secret
        ? seal(ctx.config.encryptionKey, input.client_secret)
        : (existing?.clientSecretSealed ?? ""),
      groupsClaim: input.groups_claim ?? existing?.groupsClaim ?? "groups",
      groupRoles,
      defaultRole,
      serviceAudience:
        input.service_audience === undefined ? (existing?.serviceAudience ?? null) : input.service_audience,
      passwordLoginDisabled: passwordOff,
      breakGlassEmails: breakGlass,
      updatedAt: ctx.clock(),
    };
    const [row] = existing
      ? await tx.update(ssoConfigs).set(values).where(eq(ssoConfigs.orgId, orgId)).returning()
      : await tx
          .insert(ssoConfigs)
          .values({ orgId, ...values })
          .returning();
    if (!row) throw new Error("the SSO configuration was not written");
    if (accounts) {
      await tx.delete(serviceAccounts).where(eq(serviceAccounts.orgId, orgId));
      if (accounts.length > 0)
        await tx
          .insert(serviceAccounts)
          .values(accounts.map((a) => ({ orgId, clientId: a.client_id, roleId: roleIdOf(a.role) })));
    }
    return {
      result: await viewOf(tx, row),
      target: { type: "sso_config", id: row.id },
      details: { issuer_url: row.issuerUrl, password_login_disabled: row.passwordLoginDisabled },
    };
  });
}

export async function deleteSso(ctx: RequestContext): Promise<{ deleted: true }> {
  const { orgId } = actorOf(ctx);
  return mutate(ctx, "sso.delete", { type: "sso_config" }, async (tx) => {
    const deleted = await tx.delete(ssoConfigs).where(eq(ssoConfigs.orgId, orgId)).returning();
    if (deleted.length === 0) throw notFound("SSO configuration");
    await tx.delete(serviceAccounts).where(eq(serviceAccounts.orgId, orgId));
    return { result: { deleted: true as const } };
  });
}

/** The organizations whose sign-in page shows a "Sign in with <name>" button. */
export async function ssoButtons(db: Executor): Promise<{ orgId: string; displayName: string }[]> {
  return db
    .select({ orgId: ssoConfigs.orgId, displayName: ssoConfigs.displayName })
    .from(ssoConfigs)
    .orderBy(ssoConfigs.displayName);
}
