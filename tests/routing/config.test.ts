// The passive-health settings of the inference gateway, from the environment.
import { afterAll, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "#server/config.ts";
import { tempDirs } from "../support/temp.ts";

const temp = tempDirs();
afterAll(temp.remove);

const configWith = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: temp.make("llmp-routing-config-"), ...env });

test("replica health defaults to 3 failures in a row, probes from 1 s doubling to 30 s", () => {
  expect(configWith({}).replicaHealth).toEqual({
    failureThreshold: 3,
    probeBaseMs: 1000,
    probeMaxMs: 30_000,
  });
  expect(
    configWith({
      REPLICA_FAILURE_THRESHOLD: "5",
      REPLICA_PROBE_INTERVAL_MS: "250",
      REPLICA_PROBE_MAX_INTERVAL_MS: "4000",
    }).replicaHealth,
  ).toEqual({ failureThreshold: 5, probeBaseMs: 250, probeMaxMs: 4000 });
});

test("a threshold that is not a whole number from 1 to 100 stops the start, naming the variable", () => {
  for (const bad of ["0", "-1", "2.5", "many", "101"]) {
    let error: unknown;
    try {
      configWith({ REPLICA_FAILURE_THRESHOLD: bad });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe("REPLICA_FAILURE_THRESHOLD");
  }
});
