// Options a user writes as JSON and the platform stores as it was written (jsonb columns): each is read,
// and checked, by the engine or provider it concerns, which is why they stay open maps here. One
// definition each, so that the database schema, the provider interface and the adapters name the same
// type (and a stricter one, e.g. core/json.ts's JsonObject, is one change once every writer checks it).

/** A deployment's `configuration`: engine and provider options (context_size, threads, endpoints...). */
export type DeploymentConfiguration = Record<string, unknown>;

/** A provider configuration's non-secret `settings` (base_url, namespace, prices...). */
export type ProviderSettings = Record<string, unknown>;

/** A pool's scheduling policy, as the user wrote it. */
export type SchedulingPolicy = Record<string, unknown>;
