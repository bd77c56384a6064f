// Creating, listing and revoking API keys of the active organization. The key is returned once, by
// create; every other answer carries only its prefix.
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { invalid, notFound } from "#core/errors.ts";
import { isUuid, uuidOr404 } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { type ApiKeyRow, apiKeys, deployments } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { newApiKey } from "./secret.ts";

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  /** Empty: every deployment of the organization. */
  deployment_ids: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  /** The key itself: in this answer and nowhere else, ever. */
  key: string;
  prefix: string;
  deployment_ids: string[];
  created_at: string;
  expires_at: string | null;
}

export interface CreateApiKeyInput {
  name: string;
  deployment_ids?: string[] | undefined;
  /** ISO 8601 date-time in the future. */
  expires_at?: string | undefined;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const apiKeyView = (row: ApiKeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  deployment_ids: row.deploymentIds,
  created_at: row.createdAt.toISOString(),
  last_used_at: iso(row.lastUsedAt),
  expires_at: iso(row.expiresAt),
  revoked_at: iso(row.revokedAt),
});

/** The deployments a key is scoped to must be live deployments of the same organization. */
async function checkDeploymentIds(db: Executor, orgId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (unique.length === 0) return [];
  if (!unique.every(isUuid)) throw invalid("deployment_ids", "holds an id that is not a UUID");
  const found = await db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), inArray(deployments.id, unique), isNull(deployments.deletedAt)));
  if (found.length !== unique.length) {
    throw invalid("deployment_ids", "names a deployment that does not exist in this organization");
  }
  return unique;
}

export async function createApiKey(ctx: RequestContext, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const actor = actorOf(ctx);
  const name = input.name.trim();
  if (name === "") throw invalid("name", "must not be blank");
  let expiresAt: Date | null = null;
  if (input.expires_at !== undefined) {
    expiresAt = new Date(input.expires_at);
    if (Number.isNaN(expiresAt.getTime())) throw invalid("expires_at", "is not an ISO 8601 date-time");
    if (expiresAt <= ctx.clock()) throw invalid("expires_at", "must be in the future");
  }
  return mutate(ctx, "api_key.create", { type: "api_key" }, async (tx) => {
    const deploymentIds = await checkDeploymentIds(tx, actor.orgId, input.deployment_ids ?? []);
    const secret = newApiKey();
    const [row] = await tx
      .insert(apiKeys)
      .values({
        orgId: actor.orgId,
        name,
        keyHash: secret.hash,
        prefix: secret.prefix,
        deploymentIds,
        createdBy: actor.userId,
        expiresAt,
      })
      .returning();
    if (!row) throw new Error("the API key was not inserted");
    return {
      result: {
        id: row.id,
        name: row.name,
        key: secret.key,
        prefix: row.prefix,
        deployment_ids: row.deploymentIds,
        created_at: row.createdAt.toISOString(),
        expires_at: iso(row.expiresAt),
      },
      target: { type: "api_key", id: row.id },
      details: { prefix: row.prefix, deployment_ids: row.deploymentIds },
    };
  });
}

export async function listApiKeys(ctx: RequestContext): Promise<{ api_keys: ApiKeyView[] }> {
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.orgId, actorOf(ctx).orgId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return { api_keys: rows.map(apiKeyView) };
}

/**
 * Revokes a key: the row stays (logs and audit records name it), `revoked_at` is set and the key
 * stops working at once for verifyApiKey. Revoking a revoked key changes nothing and answers the
 * same, so a retried DELETE is harmless.
 */
export async function revokeApiKey(ctx: RequestContext, keyId: string): Promise<ApiKeyView> {
  const orgId = actorOf(ctx).orgId;
  const id = uuidOr404(keyId, "API key");
  return mutate(ctx, "api_key.revoke", { type: "api_key", id }, async (tx) => {
    const [row] = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
      .for("update")
      .limit(1);
    if (!row) throw notFound("API key");
    if (row.revokedAt)
      return { result: apiKeyView(row), details: { prefix: row.prefix, already_revoked: true } };
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: ctx.clock() })
      .where(eq(apiKeys.id, id))
      .returning();
    return { result: apiKeyView(revoked as ApiKeyRow), details: { prefix: row.prefix } };
  });
}
