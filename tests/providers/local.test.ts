// The local provider through the shared provider suite (conformance.ts), with real llama.cpp worker
// processes of this machine serving the tiny GGUF model (the one the suite's tiny worker is started
// from): a worker per replica tagged with this installation, no price (a fresh adapter finds the
// worker from its environment and reports no cost), a chat completion through the inference gateway,
// the worker's own output as logs, scaling to a second worker and back, a restart adopting the worker
// and stopping an orphan process of this installation (never another installation's), terminate
// leaving no worker; and here, that it places no GPUs. The fixture's "fake" is this machine's /proc.
import { expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { engines } from "#adapters/engines/index.ts";
import { createLocalProvider } from "#adapters/providers/local/index.ts";
import {
  INSTALLATION_ENV,
  installationTag,
  instanceIdOf,
  isAlive,
  REPLICA_ENV,
  taggedProcesses,
} from "#adapters/providers/local/processes.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { providerConformance } from "./conformance.ts";
import { activePool, modelName, type ProviderTest, providerInstanceIdOf, status } from "./support.ts";

/** This installation's worker processes on the machine, and the stand-ins a test started. */
interface LocalMachine {
  installation: string;
  planted: Subprocess[];
  /** Ends every worker of this installation still running and every planted process. */
  stop(): void;
}

/** The tiny worker's model, copied into DATA_DIR/models (a local deployment's files must be there). */
const modelFile = (p: ProviderTest) => join(p.o.t.config.dataDir, "models", "tiny.gguf");

function watchMachine(p: ProviderTest): LocalMachine {
  const installation = installationTag(p.o.t.config.dataDir);
  const planted: Subprocess[] = [];
  return {
    installation,
    planted,
    stop() {
      for (const { pid } of taggedProcesses(installation)) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {}
      }
      for (const child of planted) child.kill("SIGKILL");
    },
  };
}

/** A process that looks like a worker of `installation` for a replica no row wants. */
function plant(machine: LocalMachine, installation: string): string {
  const child = Bun.spawn(["sleep", "60"], {
    env: {
      PATH: process.env.PATH ?? "",
      [REPLICA_ENV]: crypto.randomUUID(),
      [INSTALLATION_ENV]: installation,
    },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
  });
  machine.planted.push(child);
  return String(child.pid);
}

providerConformance<LocalMachine>({
  provider: "local",
  create: (_accounts, p) => createLocalProvider({ dataDir: p.o.t.config.dataDir, engines }),
  startFake: watchMachine,
  async setUp(run) {
    mkdirSync(join(run.p.o.t.config.dataDir, "models"), { recursive: true });
    copyFileSync(join(run.p.workerDir, "tiny-worker.gguf"), modelFile(run.p));
    run.poolId = await activePool(run.p, { provider: "local" });
  },
  held: (machine) => ({ workers: taggedProcesses(machine.installation).length }),
  deployment: ({ p }) => ({
    inference_model: modelFile(p),
    configuration: { threads: 1 },
  }),
  deployed: {
    title: "deploy -> RUNNING: a worker process of this machine per replica, tagged with this installation",
    endpoint: () => /^http:\/\/127\.0\.0\.1:\d+\/v1$/,
    check({ fake }, replica) {
      const [worker] = taggedProcesses(fake.installation);
      expect(instanceIdOf(worker?.pid ?? 0)).toBe(providerInstanceIdOf(replica));
      expect(isAlive(worker?.pid ?? 0)).toBe(true);
    },
  },
  beforeDeploy(run) {
    test("the local provider places no GPUs: a deployment asking for one is refused", async () => {
      const res = await call<ErrorBody>(run.p.o.orchestration, "POST", "/deployment/deploy", {
        token: run.p.o.token,
        body: {
          engine: "llama.cpp",
          image: "llama.cpp",
          model_name: "tiny-gpu",
          pool_id: run.poolId,
          inference_model: modelFile(run.p),
          gpu_per_replica: 1,
        },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain("the local provider places no GPUs");
    });
  },
  price: {
    title: "no price: a fresh adapter finds the worker from its environment and reports no cost",
    spec: () => ({ deploymentName: modelName }),
    costPerHour: "none",
  },
  logs: {
    title: "the worker's own output (its ready line) is in the deployment's logs",
    line: '{"event":"ready"',
    waitingFor: "the worker's ready line in the logs",
  },
  scaling: {
    title: "scaling to 2 starts a second worker process on its own port, back to 1 stops it",
    async atTwo({ p, fake, id }) {
      const workers = taggedProcesses(fake.installation);
      expect(new Set(workers.map((w) => w.replicaId)).size).toBe(2);
      const endpoints = (await status(p, id)).observed_replicas.map((r) => r.endpoint);
      expect(new Set(endpoints).size).toBe(2);
    },
  },
  restart: {
    title: "a restart of the orchestration adopts the worker and stops an orphan of this installation",
    orphans: {
      // The local provider tags its workers with its own installation tag (from DATA_DIR).
      plant: async ({ fake }) => ({
        ours: plant(fake, fake.installation),
        theirs: plant(fake, "ffffffffffffffff"),
      }),
      has: (_fake, pid) => isAlive(Number(pid)),
      remove: (fake, pid) => fake.planted.find((child) => String(child.pid) === pid)?.kill("SIGKILL"),
    },
  },
  terminate: { title: "terminate stops the worker: no process of this installation is left" },
});
