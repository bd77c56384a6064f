import { sql } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { roles } from "#db/schema/index.ts";
import { builtinRoles } from "../permissions.ts";

const descriptions: Record<keyof typeof builtinRoles, string> = {
  admin: "Everything, including users, roles, provider credentials and the audit log",
  developer: "Deployments, pools, models, API keys, knowledge base, prompts and policies",
  viewer: "Read only; no audit log",
};

/** Creates (or refreshes the permissions of) the built-in roles of an organization. */
export async function ensureBuiltinRoles(db: Executor, orgId: string): Promise<Map<string, string>> {
  const rows = await db
    .insert(roles)
    .values(
      Object.entries(builtinRoles).map(([name, permissions]) => ({
        orgId,
        name,
        description: descriptions[name as keyof typeof builtinRoles],
        permissions: [...permissions],
        builtin: true,
      })),
    )
    .onConflictDoUpdate({
      target: [roles.orgId, roles.name],
      set: { permissions: sql`excluded.permissions`, builtin: true },
    })
    .returning({ id: roles.id, name: roles.name });
  return new Map(rows.map((r) => [r.name, r.id]));
}
