import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { belongsTo, createdAt, id } from "./_columns.ts";
import { organizations } from "./organizations.ts";
import { users } from "./users.ts";

/** A user as an identity provider knows them: the ID token's `iss` and `sub`. */
export const externalIdentities = pgTable(
  "external_identities",
  {
    id: id(),
    orgId: belongsTo("org_id", () => organizations.id),
    userId: belongsTo("user_id", () => users.id),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("external_identities_org_issuer_subject_key").on(t.orgId, t.issuer, t.subject)],
);
export type ExternalIdentityRow = typeof externalIdentities.$inferSelect;
