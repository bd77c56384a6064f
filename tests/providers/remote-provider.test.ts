// The remote-provider base every remote provider states its differences against: what it can do, a
// pool's account check turned into Active or Failed with the reason, nothing held per pool, and the
// resources answer with the provider's notes unless its account offers more.
import { expect, test } from "bun:test";
import { createAkashProvider } from "#adapters/providers/akash/index.ts";
import type { PoolSpec, ProviderAccess } from "#adapters/providers/provider.ts";
import { noAccounts } from "#adapters/providers/remote-accounts.ts";
import { createRemoteProvider, type RemoteProviderParts } from "#adapters/providers/remote-provider.ts";
import { testEngines } from "../fakes/support/engines.ts";

const unused = () => Promise.reject(new Error("not called in these tests"));
const parts = (more: Partial<RemoteProviderParts>): RemoteProviderParts => ({
  id: "nosana",
  summary: "a remote provider",
  checkAccess: async () => {},
  notes: ["configure it"],
  startReplica: unused,
  stopReplica: unused,
  inspectReplica: unused,
  readLogs: unused,
  ...more,
});
const pool = (access: ProviderAccess): PoolSpec => ({
  poolId: "p",
  orgId: "o",
  name: "gpus",
  provider: "nosana",
  allowedGpuTypes: [],
  maxCostPerHour: null,
  isDedicated: false,
  providerPoolId: null,
  schedulingPolicy: {},
  access,
});
const access: ProviderAccess = { credentials: { api_key: "k" }, settings: {} };

test("every remote provider runs the engines' containers on GPUs, priced, without a local model file", () => {
  expect(createRemoteProvider(parts({})).capabilities).toEqual({
    engines: ["vllm", "sglang", "tgi", "llama.cpp"],
    gpus: true,
    pricing: true,
    needsModelFile: false,
  });
});

test("a pool is Active when its account passes the check, Failed with the check's reason when not", async () => {
  const seen: ProviderAccess[] = [];
  const ok = createRemoteProvider(parts({ checkAccess: async (a) => void seen.push(a) }));
  expect(await ok.provisionPool(pool(access))).toEqual({ state: "Active" });
  expect(seen).toEqual([access]);
  const refused = createRemoteProvider(
    parts({
      checkAccess: async () => {
        throw new Error("nosana GET /markets/: 401 Unauthorized");
      },
    }),
  );
  expect(await refused.provisionPool(pool(access))).toEqual({
    state: "Failed",
    reason: "nosana GET /markets/: 401 Unauthorized",
  });
  const described = createRemoteProvider(
    parts({
      checkAccess: async () => {
        throw { body: "opaque" };
      },
      describeFailure: () => "Forbidden: deployments is forbidden",
    }),
  );
  expect(await described.provisionPool(pool(access))).toEqual({
    state: "Failed",
    reason: "Forbidden: deployments is forbidden",
  });
  // Nothing is held per pool, so removing one asks nothing of the provider.
  expect(await refused.deprovisionPool(pool(access))).toBeUndefined();
});

test("resources are the notes alone, unless the asking account offers more", async () => {
  const plain = createRemoteProvider(parts({}));
  expect(await plain.listResources(access)).toEqual({
    provider: "nosana",
    cpu: null,
    memory: null,
    gpus: [],
    notes: ["configure it"],
  });
  const gpu = { name: "nvidia-3060", memory_mib: null, count: 1, price_per_hour: 0.048 };
  const offering = createRemoteProvider(
    parts({ offers: async (a) => (a?.credentials ? { gpus: [gpu] } : undefined) }),
  );
  expect((await offering.listResources(access)).gpus).toEqual([gpu]);
  expect((await offering.listResources(undefined)).gpus).toEqual([]);
});

test("an akash pool without an api_key is Failed saying so; with one it is Active", async () => {
  const akash = createAkashProvider({ engines: testEngines, accounts: noAccounts });
  expect(await akash.provisionPool(pool({ credentials: undefined, settings: {} }))).toEqual({
    state: "Failed",
    reason: "the akash provider configuration has no api_key credential",
  });
  expect(await akash.provisionPool(pool(access))).toEqual({ state: "Active" });
  expect(akash.listInstances).toBeUndefined();
});
