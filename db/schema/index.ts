export * from "./organizations.ts";
export * from "./users.ts";
export * from "./roles.ts";
export * from "./memberships.ts";
export * from "./refresh-tokens.ts";
export * from "./audit-logs.ts";
