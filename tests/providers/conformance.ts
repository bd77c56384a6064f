// What every provider must do, checked the same way for each: a provider's test file declares its
// fixture (the adapter; for a remote provider, a fake of its API whose running replicas are the real
// tiny llama.cpp worker; for `local`, a view of this machine's worker processes; what to look for
// there) and calls providerConformance. The shared sequence follows one deployment: deploy -> RUNNING,
// its price (or, for a provider without prices, that it reports none), a chat completion through the
// inference gateway, its logs, scaling to 2 and back, a restart of the orchestration adopting what
// runs (and stopping this installation's orphans, never another's), terminate leaving nothing at
// the provider. A provider's own tests go in its file, at the points named in the fixture.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { ComputeProvider, ReplicaSpec } from "#adapters/providers/provider.ts";
import { type AccountDirectory, noAccounts } from "#adapters/providers/remote-accounts.ts";
import type { ProviderId } from "#core/domain.ts";
import { replicas } from "#db/schema/replicas.ts";
import type { GET as deploymentLogs } from "#routes/orchestration/deployment/logs/[deployment_id]/index.ts";
import { providerAccounts } from "#services/provider-configs/access.ts";
import { eventually, firstReplica } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import {
  chat,
  type DeploymentView,
  deploy,
  endpointOf,
  freshProviders,
  modelName,
  type ProviderTest,
  poolActive,
  providerInstanceIdOf,
  type ReplicaView,
  scale,
  startProviderTest,
  startTestReconciler,
  status,
  stopProviderTest,
  terminate,
  untilExplained,
} from "./support.ts";

/** What the shared tests and a provider's own tests work on, filled before the first test. */
export interface ConformanceRun<F> {
  p: ProviderTest;
  fake: F;
  /** The pool the shared deployment goes to (set by `setUp`, or by a test of `beforeDeploy`). */
  poolId: string;
  /** The shared deployment, from its deploy to its terminate. */
  id: string;
}

/** A replica spec with only what an adapter's inspectReplica reads of it. */
export type InspectSpec = Partial<Omit<ReplicaSpec, "placement">> & {
  placement?: Partial<ReplicaSpec["placement"]>;
};

export interface ProviderFixture<F extends { stop(): void }> {
  provider: ProviderId;
  /** The adapter, as a (re)started orchestration process of the test's platform creates it. */
  create(accounts: AccountDirectory, p: ProviderTest): ComputeProvider;
  /**
   * The fake of the provider's API, its running replicas pointing at the tiny worker (for `local`,
   * what finds this installation's workers on the machine); `stop` also ends what it started.
   */
  startFake(p: ProviderTest): F;
  /** The organization's account and, unless a `beforeDeploy` test makes it, the pool. */
  setUp?(run: ConformanceRun<F>): Promise<void>;
  /** What the provider holds for this installation, by kind (one of each per replica). */
  held(fake: F): Record<string, number>;
  /** The shared deployment's body beyond its model name and pool (default: one GPU a replica). */
  deployment?(run: ConformanceRun<F>): Record<string, unknown>;
  deployed: {
    title: string;
    /** The replica's endpoint, or its form when the provider picks it (default: the tiny worker's). */
    endpoint?(run: ConformanceRun<F>, replica: ReplicaView): string | RegExp;
    /** What the provider was asked to create for the replica. */
    check(run: ConformanceRun<F>, replica: ReplicaView): void | Promise<void>;
  };
  /**
   * What a fresh adapter reads for the running replica: its price, or "none" for a provider without
   * prices (its capabilities say so, and it reports no cost).
   */
  price?: {
    title: string;
    spec(run: ConformanceRun<F>): InspectSpec;
    costPerHour: number | "none";
    also?(run: ConformanceRun<F>): Promise<void>;
  };
  /** A line of the deployment's logs that comes from the provider. */
  logs: { title: string; line: string; waitingFor: string };
  scaling: { title: string; atTwo?(run: ConformanceRun<F>): Promise<void> };
  restart: {
    title: string;
    /**
     * Leaves something at the provider under this installation's names that no replica wants, and
     * something of another installation's on the same account; without it, the restart only adopts.
     */
    orphans?: {
      plant(run: ConformanceRun<F>, installation: string): Promise<{ ours: string; theirs: string }>;
      has(fake: F, name: string): boolean;
      remove(fake: F, name: string): void;
    };
  };
  terminate: { title: string; also?(run: ConformanceRun<F>): void | Promise<void> };
  /** The provider's own tests, registered before the shared deploy, while it runs, after its terminate. */
  beforeDeploy?(run: ConformanceRun<F>): void;
  whileRunning?(run: ConformanceRun<F>): void;
  afterTerminate?(run: ConformanceRun<F>): void;
}

/** `held` as it is when the provider holds `n` of each kind. */
const each = (held: Record<string, number>, n: number) =>
  Object.fromEntries(Object.keys(held).map((kind) => [kind, n]));

const instanceIds = (d: DeploymentView) => d.observed_replicas.map((r) => r.provider_instance_id);

/**
 * Registers the shared tests (and the platform's start and stop around the file's tests) and returns
 * the run, so the provider's file can use the same platform and fake in tests of its own.
 */
export function providerConformance<F extends { stop(): void }>(f: ProviderFixture<F>): ConformanceRun<F> {
  const run = {} as ConformanceRun<F>;
  const create = (accounts: AccountDirectory) => f.create(accounts, run.p);
  const endpoint = (replica: ReplicaView) => {
    const expected = f.deployed.endpoint?.(run, replica) ?? `${run.p.worker.url}/v1`;
    return typeof expected === "string" ? expected : expect.stringMatching(expected);
  };
  beforeAll(async () => {
    run.p = await startProviderTest();
    run.fake = f.startFake(run.p);
    freshProviders(run.p.o, f.provider, create);
    await f.setUp?.(run);
  }, 90_000);
  afterAll(async () => {
    await stopProviderTest(run.p);
    run.fake.stop();
  }, 30_000);

  describe(f.provider, () => {
    f.beforeDeploy?.(run);

    test(f.deployed.title, async () => {
      const { p } = run;
      await poolActive(p, run.poolId);
      const started = Date.now();
      run.id = await deploy(p, {
        model_name: modelName,
        pool_id: run.poolId,
        ...(f.deployment?.(run) ?? { gpu_per_replica: 1 }),
      });
      const running = await untilExplained(p, run.id, "RUNNING");
      console.log(`${f.provider} deploy -> RUNNING: ${((Date.now() - started) / 1000).toFixed(2)} s`);
      const replica = firstReplica(running);
      expect(replica.endpoint).toEqual(endpoint(replica));
      expect(f.held(run.fake)).toEqual(each(f.held(run.fake), 1));
      await f.deployed.check(run, replica);
    }, 60_000);

    const price = f.price;
    if (price) {
      test(price.title, async () => {
        // A fresh adapter, as after a restart: what it reads comes from the provider's API alone.
        const provider = create(noAccounts);
        const replica = firstReplica(await status(run.p, run.id));
        const providerInstanceId = providerInstanceIdOf(replica);
        // The replica's id, as the reconciler gives it (the local provider checks it is its worker's).
        const [row] = await run.p.o.t.app.db
          .select({ id: replicas.id })
          .from(replicas)
          .where(eq(replicas.providerInstanceId, providerInstanceId));
        const seen = await provider.inspectReplica(
          { replicaId: row?.id ?? "", providerInstanceId, endpoint: null },
          // Only the fields the adapter reads to inspect a replica.
          price.spec(run) as ReplicaSpec,
        );
        expect(replica.endpoint).toEqual(endpoint(replica));
        expect(provider.capabilities.pricing).toBe(price.costPerHour !== "none");
        if (price.costPerHour === "none") {
          expect(seen).toEqual({ phase: "ready", endpoint: endpointOf(replica) });
          expect("costPerHour" in seen).toBe(false);
        } else {
          expect(seen).toEqual({
            phase: "ready",
            endpoint: endpointOf(replica),
            costPerHour: price.costPerHour,
          });
        }
        await price.also?.(run);
      });
    }

    test("a chat completion through the inference gateway reaches the real engine", async () => {
      const answer = await chat(run.p);
      expect(answer.object).toBe("chat.completion");
      expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
    }, 30_000);

    f.whileRunning?.(run);

    test(f.logs.title, async () => {
      const { p } = run;
      await eventually(
        async () => {
          const res = await call<typeof deploymentLogs>(
            p.o.orchestration,
            "GET",
            `/deployment/logs/${run.id}`,
            {
              token: p.o.token,
            },
          );
          return res.body.lines.some((l) => l.line.includes(f.logs.line));
        },
        10_000,
        f.logs.waitingFor,
      );
    }, 30_000);

    test(f.scaling.title, async () => {
      const { p, fake } = run;
      await scale(p, run.id, 2);
      await eventually(
        async () => {
          const d = await status(p, run.id);
          return d.observed_replicas.length === 2 && d.observed_replicas.every((r) => r.state === "READY");
        },
        20_000,
        "two READY replicas",
      );
      expect(f.held(fake)).toEqual(each(f.held(fake), 2));
      await f.scaling.atTwo?.(run);
      await scale(p, run.id, 1);
      await eventually(
        async () => Bun.deepEquals(f.held(fake), each(f.held(fake), 1)),
        20_000,
        `one of each left at ${f.provider}`,
      );
      // The replica's row goes once the provider let it go: the next test starts from one.
      await eventually(
        async () => (await status(p, run.id)).observed_replicas.length === 1,
        20_000,
        "one replica observed",
      );
      expect((await chat(p)).object).toBe("chat.completion");
    }, 60_000);

    test(f.restart.title, async () => {
      const { p, fake } = run;
      const before = await status(p, run.id);
      await p.reconciler.stop();
      const orphans = f.restart.orphans;
      const planted = await orphans?.plant(run, providerAccounts(p.o.t.app).installation);
      freshProviders(p.o, f.provider, create);
      p.reconciler = startTestReconciler(p);
      if (orphans && planted) {
        await eventually(async () => !orphans.has(fake, planted.ours), 20_000, "the orphan stopped");
        // Another installation's on the same account stays.
        expect(orphans.has(fake, planted.theirs)).toBe(true);
        orphans.remove(fake, planted.theirs);
      } else {
        // Two whole passes of the new reconciler (where a sleep of three intervals was): what it does to
        // the replicas it finds, it has done.
        await p.reconciler.pass();
        await p.reconciler.pass();
      }
      const after = await status(p, run.id);
      expect(after.status).toBe("RUNNING");
      expect(instanceIds(after)).toEqual(instanceIds(before));
      expect(f.held(fake)).toEqual(each(f.held(fake), 1));
      expect((await chat(p)).object).toBe("chat.completion");
    }, 60_000);

    test(f.terminate.title, async () => {
      await terminate(run.p, run.id);
      expect(f.held(run.fake)).toEqual(each(f.held(run.fake), 0));
      await f.terminate.also?.(run);
    }, 60_000);

    f.afterTerminate?.(run);
  });
  return run;
}
