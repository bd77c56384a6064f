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

export const deploymentStates = ["DEPLOYING", "RUNNING", "STOPPING", "STOPPED", "FAILED"] as const;
export type DeploymentState = (typeof deploymentStates)[number];

/** What the API asks for; the reconciler drives `status` toward it. */
export const desiredStates = ["running", "stopped"] as const;
export type DesiredState = (typeof desiredStates)[number];

/** Engines the platform runs (llama.cpp, the container engines) and the wire formats of hosted APIs it only routes to. */
export const engineIds = [
  "llama.cpp",
  "vllm",
  "sglang",
  "tgi",
  "openai-compatible",
  "anthropic",
  "gemini",
] as const;
export type EngineId = (typeof engineIds)[number];

/** The engines that are a hosted API's wire format: the platform only routes to them (adapters/upstream/wire/). */
export const wireIds = ["openai-compatible", "anthropic", "gemini"] as const satisfies readonly EngineId[];
export type WireId = (typeof wireIds)[number];
export const isWireId = (engine: string): engine is WireId => (wireIds as readonly string[]).includes(engine);

export const nodeStates = ["READY", "UNHEALTHY", "OFFLINE"] as const;
export type NodeState = (typeof nodeStates)[number];

export const poolStates = ["Provisioning", "Active", "Deleting", "Failed"] as const;
export type PoolState = (typeof poolStates)[number];

export const providerIds = ["local", "external", "kubernetes", "skypilot", "akash", "nosana"] as const;
export type ProviderId = (typeof providerIds)[number];

export const replicaStates = [
  "PENDING",
  "STARTING",
  "READY",
  "UNHEALTHY",
  "RESTARTING",
  /** No longer wanted (scaled down): out of rotation, stopped once requests sent to it have ended. */
  "DRAINING",
  "STOPPED",
  "FAILED",
] as const;
export type ReplicaState = (typeof replicaStates)[number];
