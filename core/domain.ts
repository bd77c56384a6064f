// The platform's domain enums: what the database stores them as (db/schema names these in its columns)
// and what services and adapters check against, without reaching into the database's schema for them.

/** The kinds of policy an organization or deployment may set (core/policies.ts has each one's schema). */
export const policyTypes = [
  "rate_limit",
  "quota",
  "guardrails",
  "rag",
  "prompt",
  "routing",
  "budget",
  "autoscaling",
  "cache",
] as const;
export type PolicyType = (typeof policyTypes)[number];
