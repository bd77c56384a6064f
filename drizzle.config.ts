import { defineConfig } from "drizzle-kit";

// `bun run db:generate` writes a new SQL migration into db/migrations from the schema.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
