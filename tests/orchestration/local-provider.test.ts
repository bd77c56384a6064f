// The local provider's process handling, with a stand-in worker that keeps the worker contract:
// start, ready from the stdout line, logs from files, fatal exits, adoption by a new provider
// instance (as after a restart of the orchestration), orphan listing, and stop.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "#adapters/engines/engine.ts";
import { createLocalProvider } from "#adapters/providers/local/index.ts";
import { environOf, isAlive, pidOf } from "#adapters/providers/local/processes.ts";
import type {
  ComputeProvider,
  ReplicaHandle,
  ReplicaObservation,
  ReplicaSpec,
} from "#adapters/providers/provider.ts";
import { tempDirs } from "../support/temp.ts";
import * as wait from "../support/wait.ts";

const temp = tempDirs();
const dataDir = temp.make("llmp-local-");
const model = join(dataDir, "model.gguf");
writeFileSync(model, "GGUF fake");
const fake: Engine = {
  id: "llama.cpp",
  localCommand: (opts) => ({
    cmd: [process.execPath, join(import.meta.dir, "fixtures", "contract-worker.ts")],
    env: { MODEL_PATH: opts.modelPath, MODEL_NAME: opts.modelName, PORT: String(opts.port), ...opts.env },
  }),
};
const make = () => createLocalProvider({ dataDir, engines: { "llama.cpp": fake } });
const started: { provider: ComputeProvider; handle: ReplicaHandle }[] = [];

const spec = (overrides: Partial<ReplicaSpec> = {}): ReplicaSpec => ({
  replicaId: crypto.randomUUID(),
  deploymentId: crypto.randomUUID(),
  deploymentName: "fake-model",
  index: 0,
  engine: "llama.cpp",
  modelPath: model,
  modelSource: model,
  configuration: {},
  gpuPerReplica: 0,
  placement: {
    poolId: "p",
    allowedGpuTypes: [],
    maxCostPerHour: null,
    isDedicated: false,
    schedulingPolicy: {},
  },
  heartbeat: undefined,
  access: { credentials: undefined, settings: {} },
  ...overrides,
});

async function until(
  provider: ComputeProvider,
  handle: ReplicaHandle,
  s: ReplicaSpec,
  phase: string,
  timeoutMs = 10_000,
) {
  // A detached worker's phase, another process's state: asked for until it is reached.
  let seen: ReplicaObservation | undefined;
  return wait.until(
    async () => {
      seen = await provider.inspectReplica(handle, s);
      return seen.phase === phase && seen;
    },
    { what: () => `phase ${phase}, still ${JSON.stringify(seen)}`, timeoutMs },
  );
}

afterAll(async () => {
  for (const { provider, handle } of started) await provider.stopReplica(handle);
  temp.remove();
});

describe("local provider", () => {
  test("starts a detached worker that becomes ready; its output is readable; stop ends it", async () => {
    const provider = make();
    const s = spec();
    const handle = await provider.startReplica(s);
    started.push({ provider, handle });
    expect(handle.providerInstanceId).toMatch(/^local-\d+$/);
    const ready = await until(provider, handle, s, "ready");
    if (ready.phase !== "ready") throw new Error("not ready");
    expect(ready.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${ready.endpoint}/models`)).json()) as { data: { id: string }[] };
    expect(models.data[0]?.id).toBe("fake-model");

    const logs = await provider.readLogs(handle, undefined);
    expect(logs.lines.map((l) => `${l.stream}:${l.line}`)).toContain("stderr:loading the model (pretend)");
    expect(logs.lines.some((l) => l.stream === "stdout" && l.line.includes('"ready"'))).toBe(true);
    expect((await provider.readLogs(handle, logs.cursor)).lines).toEqual([]);

    const pid = pidOf(handle.providerInstanceId) as number;
    await provider.stopReplica(handle);
    expect(isAlive(pid)).toBe(false);
    expect((await provider.inspectReplica(handle, s)).phase).toBe("gone");
  }, 30_000);

  test("a worker that cannot load its model is failed with its own reason", async () => {
    const provider = make();
    const s = spec({ modelPath: join(dataDir, "missing.gguf") });
    const handle = await provider.startReplica(s);
    const seen = await until(provider, handle, s, "failed");
    expect(seen).toEqual({
      phase: "failed",
      reason: `model file not found: ${join(dataDir, "missing.gguf")}`,
    });
  }, 30_000);

  test("a worker killed from outside is exited (to be restarted)", async () => {
    const provider = make();
    const s = spec();
    const handle = await provider.startReplica(s);
    started.push({ provider, handle });
    await until(provider, handle, s, "ready");
    process.kill(pidOf(handle.providerInstanceId) as number, "SIGKILL");
    const seen = await until(provider, handle, s, "exited");
    expect(seen.phase === "exited" && seen.reason).toContain("SIGKILL");
  }, 30_000);

  test("a new provider instance (a restarted orchestration) adopts a running worker, lists it, and can stop it", async () => {
    const first = make();
    const s = spec();
    const handle = await first.startReplica(s);
    started.push({ provider: first, handle });
    const ready = await until(first, handle, s, "ready");
    const second = make();
    const adopted = await second.inspectReplica(
      { ...handle, endpoint: ready.phase === "ready" ? ready.endpoint : null },
      s,
    );
    expect(adopted).toEqual(ready);
    expect(await second.listInstances?.()).toContainEqual({
      replicaId: s.replicaId,
      providerInstanceId: handle.providerInstanceId,
    });
    // The same pid under another replica's id is not this replica's worker.
    expect((await second.inspectReplica({ ...handle, replicaId: crypto.randomUUID() }, s)).phase).toBe(
      "gone",
    );
    // Reading from "end" gives only what comes after.
    expect((await second.readLogs(handle, "end")).lines).toEqual([]);
    await second.stopReplica(handle);
    expect(isAlive(pidOf(handle.providerInstanceId) as number)).toBe(false);
  }, 30_000);

  test("another installation's provider neither lists nor adopts this one's workers", async () => {
    const provider = make();
    const s = spec();
    const handle = await provider.startReplica(s);
    started.push({ provider, handle });
    await until(provider, handle, s, "ready");
    const stranger = createLocalProvider({
      dataDir: temp.make("llmp-other-"),
      engines: { "llama.cpp": fake },
    });
    expect((await stranger.listInstances?.())?.some((i) => i.replicaId === s.replicaId)).toBe(false);
    expect((await stranger.inspectReplica(handle, s)).phase).toBe("gone");
    await stranger.stopReplica(handle);
    expect(isAlive(pidOf(handle.providerInstanceId) as number)).toBe(true);
  }, 30_000);

  test("a worker inherits PATH and HOME, never the platform's secrets", async () => {
    process.env.JWT_SECRET = "do-not-leak-this-secret";
    const provider = make();
    const s = spec();
    const handle = await provider.startReplica(s);
    started.push({ provider, handle });
    delete process.env.JWT_SECRET;
    // Right after the fork, /proc shows the parent's environment: wait until the worker runs.
    await until(provider, handle, s, "ready");
    const env = environOf(pidOf(handle.providerInstanceId) as number);
    expect(env?.get("PATH")).toBe(process.env.PATH as string);
    expect(env?.has("JWT_SECRET")).toBe(false);
    expect(env?.get("MODEL_NAME")).toBe("fake-model");
  }, 30_000);
});
