import { boolean, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./_columns.ts";

export const users = pgTable(
  "users",
  {
    id: id(),
    /** Stored lower-cased; unique across the installation. */
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    /** Encrypted base32 secret; set by /auth/totp/setup, trusted only once totpEnabled. */
    totpSecret: text("totp_secret"),
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    /** The last accepted TOTP time step, so a code is accepted once. */
    totpLastStep: integer("totp_last_step"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);
export type UserRow = typeof users.$inferSelect;
