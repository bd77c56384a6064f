// Every environment variable of CONTRACTS, parsed and validated once at start.
// A bad value stops the process with one line naming the variable (see ConfigError).

import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { messageOf, propertyOf } from "#core/error-chain.ts";
import {
  type Config,
  type LogLevel,
  logLevels,
  type Ports,
  type ServiceName,
  serviceNames,
} from "#services/config.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH_FLOOR } from "#services/crypto/passwords.ts";
import { parseTrustedProxies } from "./client-address.ts";

// Where the process's callers have always found them.
export type { Config, LogLevel, ServiceName };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535)
    throw new ConfigError(name, `not a port number (0-65535): "${raw}"`);
  return value;
}

function url(env: Env, name: string, fallback: string, schemes: readonly string[]): string;
function url(env: Env, name: string, fallback: undefined, schemes: readonly string[]): string | undefined;
function url(
  env: Env,
  name: string,
  fallback: string | undefined,
  schemes: readonly string[],
): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, "not a valid URL");
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${schemes.join(" or ")} URL, got ${parsed.protocol}`);
  }
  return raw;
}

function milliseconds(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 10 || value > 3_600_000) {
    throw new ConfigError(name, `expected milliseconds between 10 and 3600000, got "${raw}"`);
  }
  return value;
}

function seconds(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > max) {
    throw new ConfigError(name, `expected seconds between 1 and ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = allowed.find((candidate) => candidate === raw.toLowerCase());
  if (value === undefined) throw new ConfigError(name, `expected one of ${allowed.join(", ")}, got "${raw}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${env[name]}"`);
}

/** MODELS_DIR: one directory or several separated by ":" (as PATH); DATA_DIR/models when unset. */
function modelDirs(env: Env, dataDir: string): string[] {
  const raw = env.MODELS_DIR;
  if (raw === undefined || raw.trim() === "") return [join(dataDir, "models")];
  const dirs = raw
    .split(delimiter)
    .map((d) => d.trim())
    .filter((d) => d !== "");
  if (dirs.length === 0) throw new ConfigError("MODELS_DIR", "names no directory");
  return dirs.map((d) => resolve(d));
}

/** MODEL_SOURCE_ALLOWED_HOSTS: comma-separated `host` or `host:port` entries, lower-cased. */
function hostList(env: Env, name: string): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== "");
  for (const entry of entries) {
    if (/[/\s@]/.test(entry)) throw new ConfigError(name, `expected host or host:port, got "${entry}"`);
  }
  return entries;
}

function services(env: Env): ReadonlySet<ServiceName> {
  const raw = env.SERVICES;
  if (raw === undefined || raw.trim() === "") return new Set(serviceNames);
  const chosen = new Set<ServiceName>();
  for (const entry of raw.split(",").map((s) => s.trim().toLowerCase())) {
    if (entry === "") continue;
    const known = serviceNames.find((name) => name === entry);
    if (known === undefined) {
      throw new ConfigError("SERVICES", `unknown service "${entry}" (known: ${serviceNames.join(", ")})`);
    }
    chosen.add(known);
  }
  if (chosen.size === 0) throw new ConfigError("SERVICES", "names no service");
  return chosen;
}

function secret(env: Env, name: string, dataDir: string, file: string): string {
  const raw = env[name];
  if (raw !== undefined && raw !== "") {
    if (raw.length < 16) throw new ConfigError(name, "must be at least 16 characters");
    return raw;
  }
  return persistedSecret(join(dataDir, file));
}

/**
 * Reads a secret kept in DATA_DIR, creating it (mode 0600) on first use.
 * Exclusive create, so processes starting together agree on one value.
 */
export function persistedSecret(path: string): string {
  try {
    const fd = openSync(path, "wx", 0o600);
    try {
      writeSync(fd, randomBytes(32).toString("base64url"));
    } finally {
      closeSync(fd);
    }
    chmodSync(path, 0o600);
  } catch (error) {
    if (propertyOf(error, "code") !== "EEXIST") throw error;
  }
  // A writer that raced us may not have flushed yet: wait for content.
  for (let attempt = 0; attempt < 50; attempt++) {
    const value = readFileSync(path, "utf8").trim();
    if (value !== "") return value;
    Bun.sleepSync(10);
  }
  throw new ConfigError("DATA_DIR", `secret file ${path} is empty`);
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(env.DATA_DIR || "./data");
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new ConfigError("DATA_DIR", `cannot create ${dataDir}: ${messageOf(error)}`);
  }
  const host = env.HOST || "0.0.0.0";
  const ports: Ports = {
    inference: port(env, "INFERENCE_PORT", 8001),
    filtration: port(env, "FILTRATION_PORT", 8000),
    orchestration: port(env, "ORCHESTRATION_PORT", 8080),
    grpc: port(env, "GRPC_PORT", 50051),
    dashboard: port(env, "DASHBOARD_PORT", 3001),
  };
  const http = ["http:", "https:"] as const;
  const local = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const adminEmail = (env.ADMIN_EMAIL || "admin@example.com").trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail)) throw new ConfigError("ADMIN_EMAIL", "not an e-mail address");
  const passwordMinLength = wholeNumber(
    env,
    "PASSWORD_MIN_LENGTH",
    PASSWORD_MIN_LENGTH_FLOOR,
    PASSWORD_MIN_LENGTH_FLOOR,
    PASSWORD_MAX_LENGTH,
  );
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && adminPassword.length < passwordMinLength) {
    throw new ConfigError("ADMIN_PASSWORD", `must be at least ${passwordMinLength} characters`);
  }
  return {
    dataDir,
    databaseUrl: url(env, "DATABASE_URL", undefined, ["postgres:", "postgresql:"]),
    redisUrl: url(env, "REDIS_URL", undefined, ["redis:", "rediss:"]),
    host,
    ports,
    filtrationUrl: url(env, "FILTRATION_URL", `http://${local}:${ports.filtration}`, http),
    orchestrationUrl: url(env, "ORCHESTRATION_URL", `http://${local}:${ports.orchestration}`, http),
    internalApiKey: secret(env, "INTERNAL_API_KEY", dataDir, "internal_api_key"),
    jwtSecret: secret(env, "JWT_SECRET", dataDir, "jwt_secret"),
    encryptionKey: secret(env, "ENCRYPTION_KEY", dataDir, "encryption_key"),
    adminEmail,
    adminPassword,
    allowRegistration: bool(env, "ALLOW_REGISTRATION", false),
    heartbeatIntervalMs: milliseconds(env, "HEARTBEAT_INTERVAL_MS", 10_000),
    nodeRetireAfterS: seconds(env, "NODE_RETIRE_AFTER_S", 3600, 30 * 24 * 3600),
    modelSources: {
      dirs: modelDirs(env, dataDir),
      allowHttp: bool(env, "MODEL_SOURCE_ALLOW_HTTP", false),
      allowedHosts: hostList(env, "MODEL_SOURCE_ALLOWED_HOSTS"),
    },
    externalEndpointsAllowPrivate: bool(env, "EXTERNAL_ENDPOINTS_ALLOW_PRIVATE", true),
    logLevel: oneOf(env, "LOG_LEVEL", logLevels, "info"),
    services: services(env),
    trustedProxies: trustedProxies(env),
    passwordMinLength,
    providerUrls: {
      allowHttp: bool(env, "PROVIDER_URL_ALLOW_HTTP", false),
      allowedHosts: hostList(env, "PROVIDER_URL_ALLOWED_HOSTS"),
      variables: { allowHttp: "PROVIDER_URL_ALLOW_HTTP", allowedHosts: "PROVIDER_URL_ALLOWED_HOSTS" },
    },
    passwordHash: {
      memoryKib: wholeNumber(env, "PASSWORD_HASH_MEMORY_KIB", 65_536, 1024, 4_194_304),
      timeCost: wholeNumber(env, "PASSWORD_HASH_TIME_COST", 2, 1, 32),
    },
    database: {
      statementTimeoutMs: milliseconds(env, "DATABASE_STATEMENT_TIMEOUT_MS", 5000),
      connectTimeoutMs: milliseconds(env, "DATABASE_CONNECT_TIMEOUT_MS", 5000),
      retryIntervalMs: milliseconds(env, "DATABASE_RETRY_INTERVAL_MS", 1000),
    },
    replicaHealth: {
      failureThreshold: count(env, "REPLICA_FAILURE_THRESHOLD", 3, 100),
      probeBaseMs: milliseconds(env, "REPLICA_PROBE_INTERVAL_MS", 1000),
      probeMaxMs: milliseconds(env, "REPLICA_PROBE_MAX_INTERVAL_MS", 30_000),
    },
  };
}

const count = (env: Env, name: string, fallback: number, max: number): number =>
  wholeNumber(env, name, fallback, 1, max);

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(name, `expected a whole number between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function trustedProxies(env: Env): string[] {
  const entries = (env.TRUSTED_PROXIES ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  try {
    parseTrustedProxies(entries);
  } catch (error) {
    throw new ConfigError(
      "TRUSTED_PROXIES",
      `not a comma list of addresses or CIDR ranges: ${messageOf(error)}`,
    );
  }
  return entries;
}
