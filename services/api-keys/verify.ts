// The inference hot path's question: is this a working key, and of whom? One indexed lookup by the
// key's SHA-256 (so no comparison runs over the key's characters), revoked and expired keys refused.
// The use is noted for `last_used_at` in memory, not written per request.
import { eq } from "drizzle-orm";
import { apiKeys } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { apiKeyPattern, hashApiKey } from "./secret.ts";

export interface VerifiedApiKey {
  keyId: string;
  orgId: string;
  /** Empty: every deployment of the organization. */
  deploymentIds: string[];
  prefix: string;
  /** When the key stops working on its own; callers caching a verification must not cache past it. */
  expiresAt: Date | null;
}

export async function verifyApiKey(
  ctx: Pick<AppContext, "db" | "clock" | "lastUsed">,
  rawKey: string,
): Promise<VerifiedApiKey | undefined> {
  if (!apiKeyPattern.test(rawKey)) return undefined;
  const [row] = await ctx.db
    .select({
      id: apiKeys.id,
      orgId: apiKeys.orgId,
      deploymentIds: apiKeys.deploymentIds,
      prefix: apiKeys.prefix,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hashApiKey(rawKey)))
    .limit(1);
  const now = ctx.clock();
  if (!row || row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) return undefined;
  ctx.lastUsed.touch(row.id, now);
  return {
    keyId: row.id,
    orgId: row.orgId,
    deploymentIds: row.deploymentIds,
    prefix: row.prefix,
    expiresAt: row.expiresAt,
  };
}

/**
 * The organization and key of a revoked or expired key, so a call refused for it is logged where its
 * owner looks; undefined for a key that never existed. Asked only after verifyApiKey refused.
 */
export async function refusedKeyOwner(
  ctx: Pick<AppContext, "db">,
  rawKey: string,
): Promise<{ orgId: string; keyId: string; prefix: string } | undefined> {
  if (!apiKeyPattern.test(rawKey)) return undefined;
  const [row] = await ctx.db
    .select({ orgId: apiKeys.orgId, keyId: apiKeys.id, prefix: apiKeys.prefix })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, hashApiKey(rawKey)))
    .limit(1);
  return row;
}
