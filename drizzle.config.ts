// `bun run db:generate` writes a new SQL migration into db/migrations from the schema. A plain object:
// drizzle-kit is in the development kit (dev/package.json), not importable from the root.
export default {
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
};
