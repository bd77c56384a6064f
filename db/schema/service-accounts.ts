import { pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { roles } from "./roles.ts";

/**
 * A machine that signs in without a password: a client of the organization's identity provider whose
 * client-credentials tokens act with `role`.
 */
export const serviceAccounts = pgTable(
  "service_accounts",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    /** The identity provider's client id (`client_id`, `azp` or `sub` of its tokens). */
    clientId: text("client_id").notNull(),
    roleId: uuid("role_id")
      .notNull()
      .references(() => roles.id),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("service_accounts_org_client_key").on(t.orgId, t.clientId)],
);
export type ServiceAccountRow = typeof serviceAccounts.$inferSelect;
