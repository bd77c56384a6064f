// The settings a process runs with, as services see them. Parsed and validated from the environment
// in server/config.ts; they live here so that services do not depend on the server that starts them.

export const serviceNames = ["inference", "filtration", "orchestration", "dashboard"] as const;
export type ServiceName = (typeof serviceNames)[number];

export const logLevels = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export interface Ports {
  inference: number;
  filtration: number;
  orchestration: number;
  grpc: number;
  dashboard: number;
}

/**
 * argon2id's cost for new hashes (config: PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_TIME_COST; Bun's
 * defaults, 64 MiB and 2 passes, unless set). A stored hash carries the cost it was made with, so
 * verifying never depends on it, and changing it locks nobody out.
 */
export interface PasswordHashCost {
  memoryKib: number;
  timeCost: number;
}

export interface Config {
  dataDir: string;
  /** Unset: embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Unset: in-process counters. */
  redisUrl: string | undefined;
  host: string;
  ports: Ports;
  filtrationUrl: string;
  orchestrationUrl: string;
  internalApiKey: string;
  jwtSecret: string;
  /** Seals secrets stored in the database (TOTP secrets, provider credentials). */
  encryptionKey: string;
  adminEmail: string;
  /** Unset: a password is generated on first start and printed once. */
  adminPassword: string | undefined;
  allowRegistration: boolean;
  /** How often nodes send heartbeats; a node silent for three intervals turns UNHEALTHY. */
  heartbeatIntervalMs: number;
  /**
   * A node OFFLINE or UNHEALTHY, silent this long and hosting no live replica, leaves the inventory
   * (NODE_RETIRE_AFTER_S): a pool lists the machines it has, not every worker it ever had.
   */
  nodeRetireAfterS: number;
  /** Where model sources may point: local model files only inside these directories (MODELS_DIR). */
  modelSources: ModelSourceSettings;
  /** Whether an `external` deployment's endpoints may be loopback, link-local or private addresses. */
  externalEndpointsAllowPrivate: boolean;
  logLevel: LogLevel;
  services: ReadonlySet<ServiceName>;
  /**
   * Proxies (addresses or CIDR ranges) whose X-Forwarded-For is believed for the client address the
   * sign-in throttle and the audit log record. Empty (the default): the socket's peer address.
   */
  trustedProxies: string[];
  /**
   * Passive health of replicas at the inference gateway: failures in a row that take a replica out
   * of rotation (REPLICA_FAILURE_THRESHOLD), the first probe's delay and its back-off's ceiling.
   */
  replicaHealth: { failureThreshold: number; probeBaseMs: number; probeMaxMs: number };
  /** argon2id's cost for new password hashes (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_TIME_COST). */
  passwordHash: PasswordHashCost;
  /**
   * PostgreSQL time limits (db/resilient-postgres.ts): a statement's (DATABASE_STATEMENT_TIMEOUT_MS),
   * a connection attempt's (DATABASE_CONNECT_TIMEOUT_MS), and how often one query tries again while
   * the database is unreachable (DATABASE_RETRY_INTERVAL_MS).
   */
  database: { statementTimeoutMs: number; connectTimeoutMs: number; retryIntervalMs: number };
  /** The shortest password accepted (PASSWORD_MIN_LENGTH; 12 unless set higher). */
  passwordMinLength: number;
  /**
   * What a provider's `settings.base_url` (and any other `*_url` setting) may name: the model sources'
   * rule (https, public addresses) with its own variables, PROVIDER_URL_ALLOW_HTTP and
   * PROVIDER_URL_ALLOWED_HOSTS.
   */
  providerUrls: UrlRules;
}

/** Which URLs the server may be made to call: their scheme, and the hosts allowed though internal. */
export interface UrlRules {
  /** http:// URLs too (https:// only otherwise). */
  allowHttp: boolean;
  /** Hosts (`name` or `name:port`) a URL may name even when they are loopback or private. */
  allowedHosts: string[];
  /** The variables that set the two, named in the refusals. */
  variables: { allowHttp: string; allowedHosts: string };
}

export interface ModelSourceSettings {
  /** Absolute directories a local model path must resolve into; downloads go to the first. */
  dirs: string[];
  /** http:// model URLs too (https:// only otherwise). */
  allowHttp: boolean;
  /** Hosts (`name` or `name:port`) a model URL may name even when they are loopback or private. */
  allowedHosts: string[];
}

export const modelSourceVariables = {
  allowHttp: "MODEL_SOURCE_ALLOW_HTTP",
  allowedHosts: "MODEL_SOURCE_ALLOWED_HOSTS",
} as const;
