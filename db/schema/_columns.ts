// Column helpers shared by every table, so ids and timestamps look the same everywhere.
import { type AnyPgColumn, timestamp, uuid } from "drizzle-orm/pg-core";

export const id = () => uuid("id").primaryKey().defaultRandom();
export const createdAt = () =>
  timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const updatedAt = () =>
  timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
/** A required reference to the row this one belongs to, deleted with it. */
export const belongsTo = (name: string, parent: () => AnyPgColumn) =>
  uuid(name).notNull().references(parent, { onDelete: "cascade" });
