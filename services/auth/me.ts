import { eq } from "drizzle-orm";
import { notFound } from "#core/errors.ts";
import { users } from "#db/schema/index.ts";
import { actorOf, type RequestContext } from "../context.ts";
import type { SessionUser } from "./session.ts";

export interface Me extends SessionUser {
  totp_enabled: boolean;
}

export async function me(ctx: RequestContext): Promise<Me> {
  const actor = actorOf(ctx);
  const [row] = await ctx.db
    .select({ totpEnabled: users.totpEnabled })
    .from(users)
    .where(eq(users.id, actor.userId))
    .limit(1);
  if (!row) throw notFound("user");
  return {
    id: actor.userId,
    email: actor.email,
    role: actor.role,
    org_id: actor.orgId,
    totp_enabled: row.totpEnabled,
  };
}
