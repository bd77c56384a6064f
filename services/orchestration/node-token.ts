// A pool's node token: the secret its nodes present with heartbeats. Only its SHA-256 is stored.
// It is derived from the installation's internal key and the pool id, so the orchestration can hand
// it to the workers it launches itself without keeping it anywhere; users see it once, at creation.
import { createHash, createHmac } from "node:crypto";
import { and, eq, ne } from "drizzle-orm";
import { type PoolRow, pools } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";

export function nodeTokenFor(ctx: AppContext, poolId: string): string {
  const mac = createHmac("sha256", ctx.config.internalApiKey)
    .update(`node-token:${poolId}`)
    .digest("base64url");
  return `nt_${mac}`;
}

export const nodeTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** The pool a node token belongs to (not one being deleted), if any. */
export async function poolOfNodeToken(ctx: AppContext, token: string): Promise<PoolRow | undefined> {
  if (!token.startsWith("nt_")) return undefined;
  const [pool] = await ctx.db
    .select()
    .from(pools)
    .where(and(eq(pools.nodeTokenHash, nodeTokenHash(token)), ne(pools.state, "Deleting")))
    .limit(1);
  return pool;
}
