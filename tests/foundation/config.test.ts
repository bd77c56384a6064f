import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "#server/config.ts";
import { tempDirs } from "../support/temp.ts";

const temp = tempDirs();
afterAll(temp.remove);
const dir = () => temp.make("llmp-config-");

describe("loadConfig", () => {
  test("defaults: the ports of the specification, every service, no database or Redis URL", () => {
    const config = loadConfig({ DATA_DIR: dir() });
    expect(config.ports).toEqual({
      inference: 8001,
      filtration: 8000,
      orchestration: 8080,
      grpc: 50051,
      dashboard: 3001,
    });
    expect([...config.services].sort()).toEqual(["dashboard", "filtration", "inference", "orchestration"]);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.filtrationUrl).toBe("http://127.0.0.1:8000");
  });

  test.each([
    ["INFERENCE_PORT", "80a"],
    ["GRPC_PORT", "70000"],
    ["DATABASE_URL", "mysql://localhost/x"],
    ["DATABASE_URL", "not a url"],
    ["REDIS_URL", "http://localhost:6379"],
    ["FILTRATION_URL", "ftp://x"],
    ["SERVICES", "inference,billing"],
    ["LOG_LEVEL", "loud"],
    ["ALLOW_REGISTRATION", "maybe"],
    ["JWT_SECRET", "short"],
    ["ENCRYPTION_KEY", "short"],
    ["ADMIN_EMAIL", "not-an-email"],
  ])("%s=%s is refused with the variable named", (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ DATA_DIR: dir(), [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as ConfigError).message).toStartWith(`${name}: `);
  });

  test("SERVICES picks a subset", () => {
    const config = loadConfig({ DATA_DIR: dir(), SERVICES: "inference, filtration" });
    expect([...config.services].sort()).toEqual(["filtration", "inference"]);
  });

  test("INTERNAL_API_KEY, JWT_SECRET and ENCRYPTION_KEY are generated once, kept in DATA_DIR with mode 0600", () => {
    const dataDir = dir();
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    expect(first.internalApiKey.length).toBeGreaterThanOrEqual(40);
    expect(first.jwtSecret).not.toBe(first.internalApiKey);
    expect(second.internalApiKey).toBe(first.internalApiKey);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.encryptionKey).toBe(first.encryptionKey);
    expect(new Set([first.jwtSecret, first.internalApiKey, first.encryptionKey]).size).toBe(3);
    for (const file of ["internal_api_key", "jwt_secret", "encryption_key"]) {
      expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(dataDir, "jwt_secret"), "utf8")).toBe(first.jwtSecret);
  });

  test("set secrets win over the kept ones", () => {
    const config = loadConfig({
      DATA_DIR: dir(),
      JWT_SECRET: "a".repeat(32),
      INTERNAL_API_KEY: "b".repeat(32),
      ENCRYPTION_KEY: "c".repeat(32),
    });
    expect(config.jwtSecret).toBe("a".repeat(32));
    expect(config.internalApiKey).toBe("b".repeat(32));
    expect(config.encryptionKey).toBe("c".repeat(32));
  });
});

test("a bad variable stops `bun start` with a non-zero exit and one line naming it", async () => {
  const proc = Bun.spawn(["bun", "main.ts"], {
    env: { ...process.env, DATA_DIR: dir(), ORCHESTRATION_PORT: "eighty" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await proc.exited;
  const stderr = await new Response(proc.stderr).text();
  expect(code).not.toBe(0);
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).toContain("ORCHESTRATION_PORT");
});
