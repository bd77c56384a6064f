// The bearer tokens an identity provider provisions with: one or more per organization, made by an
// administrator (POST /admin/scim/tokens), shown once and stored as a SHA-256 (a token is 256 random
// bits, so a fast hash found by an index is enough, as for API keys).
import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, isNull } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import { type ScimTokenRow, scimTokens } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { uuidPattern } from "../auth/session.ts";
import { type Actor, type AppContext, actorOf, type RequestContext } from "../context.ts";
import type { NewScimTokenT, ScimTokenViewT } from "../sso/requests.ts";

const tokenPattern = /^scim-[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

const viewOf = (row: ScimTokenRow): ScimTokenViewT => ({
  id: row.id,
  prefix: row.prefix,
  created_at: row.createdAt.toISOString(),
  revoked_at: row.revokedAt?.toISOString() ?? null,
});

export async function createScimToken(ctx: RequestContext): Promise<NewScimTokenT> {
  const { orgId } = actorOf(ctx);
  const token = `scim-${randomBytes(32).toString("base64url")}`;
  return mutate(ctx, "scim.token.create", { type: "scim_token" }, async (tx) => {
    const [row] = await tx
      .insert(scimTokens)
      .values({ orgId, tokenHash: hashOf(token), prefix: token.slice(0, 13) })
      .returning();
    if (!row) throw new Error("the token was not stored");
    return { result: { ...viewOf(row), token }, target: { type: "scim_token", id: row.id } };
  });
}

export async function listScimTokens(ctx: RequestContext): Promise<{ tokens: ScimTokenViewT[] }> {
  const rows = await ctx.db
    .select()
    .from(scimTokens)
    .where(eq(scimTokens.orgId, actorOf(ctx).orgId))
    .orderBy(desc(scimTokens.createdAt));
  return { tokens: rows.map(viewOf) };
}

export async function revokeScimToken(ctx: RequestContext, id: string): Promise<ScimTokenViewT> {
  const { orgId } = actorOf(ctx);
  if (!uuidPattern.test(id)) throw notFound("SCIM token");
  return mutate(ctx, "scim.token.revoke", { type: "scim_token", id }, async (tx) => {
    const [row] = await tx
      .update(scimTokens)
      .set({ revokedAt: ctx.clock() })
      .where(and(eq(scimTokens.id, id), eq(scimTokens.orgId, orgId), isNull(scimTokens.revokedAt)))
      .returning();
    if (row) return { result: viewOf(row) };
    const [existing] = await tx
      .select()
      .from(scimTokens)
      .where(and(eq(scimTokens.id, id), eq(scimTokens.orgId, orgId)));
    if (!existing) throw notFound("SCIM token");
    return { result: viewOf(existing) };
  });
}

/**
 * The actor of a SCIM request: the organization's provisioning client. It holds no permission of the
 * platform's list: SCIM routes accept it and nothing else does.
 */
export async function actorFromScimToken(ctx: Pick<AppContext, "db">, token: string): Promise<Actor> {
  if (!tokenPattern.test(token)) throw new AppError("unauthenticated", "invalid SCIM token");
  const [row] = await ctx.db
    .select({ id: scimTokens.id, orgId: scimTokens.orgId, prefix: scimTokens.prefix })
    .from(scimTokens)
    .where(and(eq(scimTokens.tokenHash, hashOf(token)), isNull(scimTokens.revokedAt)))
    .limit(1);
  if (!row) throw new AppError("unauthenticated", "invalid SCIM token");
  return {
    userId: row.id,
    email: `scim:${row.prefix}`,
    orgId: row.orgId,
    role: "scim",
    permissions: new Set(),
    machine: "scim",
  };
}
