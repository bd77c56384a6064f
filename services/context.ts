// What every service function receives: built once per process (AppContext) and extended once per
// request (RequestContext). Services know nothing of HTTP, gRPC or HTML; this is all they see.

import type { LogFields, Logger } from "#core/logger.ts";
import type { Database } from "#db/client.ts";
import type { Config } from "./config.ts";
import type { Permission } from "./permissions.ts";

export type { LogFields, Logger };

export interface AppContext {
  db: Database;
  config: Config;
  log: Logger;
  clock: () => Date;
  /** API-key uses noted in memory and written in batches; built by server/start/platform.ts, flushed at stop. */
  lastUsed: LastUsedRecorder;
  /** OpenTelemetry tracer when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set (server/telemetry.ts); else none. */
  tracer?: import("@opentelemetry/api").Tracer | undefined;
  // The runtimes (orchestration, knowledge, inference) are not fields here: this module is the base every
  // service imports, the runtimes' own parts included, so it names nothing above it. A service that needs
  // one asks for it in its parameter type (`AppContext & WithOrchestration`, from the runtime's module);
  // server/platform-context.ts names the whole, which server/compose.ts builds.
}

/**
 * Where a use of an API key is noted (services/api-keys/last-used.ts's LastUsedTracker). Named here, as
 * what services call, so the base every service imports names no service folder.
 */
export interface LastUsedRecorder {
  touch(keyId: string, at: Date): void;
  /** Uses noted and not yet written. */
  readonly size: number;
  /** Writes every noted use; returns how many keys it covered. */
  flush(): Promise<number>;
}

/** A signed-in user acting within one organization. */
export interface Actor {
  userId: string;
  email: string;
  orgId: string;
  role: string;
  permissions: ReadonlySet<Permission>;
  /** The session (refresh-token family) of the access token; sign-out revokes it. */
  sessionId?: string | undefined;
  /**
   * Not a person: a service account (a client-credentials token; `userId` is the service account's id)
   * or an identity provider's SCIM client (`userId` is the SCIM token's id). Absent: a user.
   */
  machine?: "service_account" | "scim" | undefined;
}

export interface RequestContext extends AppContext {
  requestId: string;
  actor: Actor | undefined;
  ip: string | undefined;
  userAgent: string | undefined;
}

/** The actor of a request that the guard already authenticated. */
export function actorOf(ctx: RequestContext): Actor {
  if (!ctx.actor) throw new Error("service called without an authenticated actor");
  return ctx.actor;
}
