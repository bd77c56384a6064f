// One SkyPilot cluster per replica, named `llmp-<replica id>` (labels carry the deployment too).
// Launch is submitted and not waited for: each inspection peeks at the launch request (PENDING,
// RUNNING, then SUCCEEDED or FAILED with SkyPilot's reason, e.g. no quota), then at the cluster
// (INIT, UP), its endpoint for the engine's port and its cost. The task asks SkyPilot for
// max_hourly_cost; servers that ignore it are caught here: a cluster costing more an hour than the
// pool's max_cost_per_hour is taken down and the replica fails saying so. Terminate takes the cluster down and waits for it.
import type { ProviderSettings } from "#core/options.ts";
import type { ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { containerFor, type InstanceAccounts } from "../remote-accounts.ts";
import type { RemoteReplicas } from "../remote-provider.ts";
import { failureOf, SkyPilotClient } from "./client.ts";
import { taskOf } from "./task.ts";

export interface SkyPilotReplicaState {
  launchRequest: string | undefined;
  /** The launch request succeeded and the cluster served: no need to peek at it again. */
  launched?: boolean;
  port: number;
  /** The last ready observation and when it was made (each one costs three API server requests). */
  ready?: { observation: ReplicaObservation; at: number };
}

export type SkyPilotReplicas = RemoteReplicas<SkyPilotReplicaState>;

/** How long a ready cluster is not asked again (`settings.poll_interval_s`, default 10 s). */
const pollIntervalMs = (settings: Readonly<ProviderSettings>) =>
  (typeof settings.poll_interval_s === "number" ? settings.poll_interval_s : 10) * 1000;

/** `llmp-<installation>-<replica id>`: this installation's cluster of that replica. */
export const clusterNameOf = (installation: string, replicaId: string) => `llmp-${installation}-${replicaId}`;
export const replicaIdOfCluster = (installation: string, name: string) =>
  name.startsWith(`llmp-${installation}-`)
    ? /^([0-9a-f-]{36})$/.exec(name.slice(`llmp-${installation}-`.length))?.[1]
    : undefined;

export async function startSkyPilotReplica(
  { engines, accounts, states }: SkyPilotReplicas,
  spec: ReplicaSpec,
): Promise<ReplicaHandle> {
  const client = new SkyPilotClient(spec.access);
  const cluster = clusterNameOf(accounts.installation, spec.replicaId);
  const container = containerFor(engines, spec, "skypilot", cluster);
  const launchRequest = await client.launch(taskOf(spec, container, cluster), cluster);
  accounts.remember(cluster, spec.access);
  states.set(cluster, { launchRequest, port: container.port });
  return { replicaId: spec.replicaId, providerInstanceId: cluster, endpoint: null };
}

export async function stopSkyPilotReplica(
  { accounts, states }: SkyPilotReplicas,
  handle: ReplicaHandle,
): Promise<void> {
  const client = new SkyPilotClient(await accounts.of(handle));
  const cluster = handle.providerInstanceId;
  const records = await client.status([cluster]);
  if (records.some((r) => r.name === cluster)) await client.down(cluster);
  states.delete(cluster);
  accounts.forget(cluster);
}

export async function inspectSkyPilotReplica(
  { engines, accounts, states }: SkyPilotReplicas,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  const cluster = handle.providerInstanceId;
  accounts.remember(cluster, spec.access);
  const client = new SkyPilotClient(spec.access);
  let state = states.get(cluster);
  if (!state) {
    // Adopted after a restart: the launch request is not known any more, the cluster is.
    const port = containerFor(engines, spec, "skypilot", cluster).port;
    state = { launchRequest: undefined, port };
    states.set(cluster, state);
  }
  if (state.ready && Date.now() - state.ready.at < pollIntervalMs(spec.access.settings)) {
    return state.ready.observation;
  }
  state.ready = undefined;
  if (state.launchRequest && !state.launched) {
    const launch = await client.peek(state.launchRequest);
    if (launch?.status === "PENDING" || launch?.status === "RUNNING") return { phase: "starting" };
    if (launch?.status === "FAILED") {
      // SkyPilot may leave a partly provisioned cluster behind: take it down.
      await client.down(cluster).catch(() => {});
      return { phase: "failed", reason: `SkyPilot launch failed: ${failureOf(launch)}` };
    }
    if (launch?.status === "CANCELLED") return { phase: "exited", reason: "SkyPilot launch cancelled" };
  }
  const record = (await client.status([cluster])).find((r) => r.name === cluster);
  if (!record) return { phase: "gone" };
  if (record.status === "STOPPED") return { phase: "exited", reason: `SkyPilot cluster ${cluster} STOPPED` };
  if (record.status !== "UP") return { phase: "starting" };
  const endpoints = await client.endpoints(cluster, state.port);
  const url = endpoints[String(state.port)];
  if (!url) return { phase: "starting" };
  const cost = (await client.costReport()).find((r) => r.name === cluster);
  const costPerHour =
    cost && cost.duration > 0 ? Math.round((cost.total_cost / cost.duration) * 3600 * 1e4) / 1e4 : null;
  const ceiling = spec.placement.maxCostPerHour;
  if (ceiling !== null && costPerHour !== null && costPerHour > ceiling) {
    await client.down(cluster);
    return {
      phase: "failed",
      reason: `SkyPilot's cheapest placement costs $${costPerHour}/h, over the pool's max_cost_per_hour ($${ceiling}/h)`,
    };
  }
  const base = /^https?:\/\//.test(url) ? url : `http://${url}`;
  const observation: ReplicaObservation = {
    phase: "ready",
    endpoint: `${base.replace(/\/+$/, "")}/v1`,
    costPerHour,
  };
  state.ready = { observation, at: Date.now() };
  // The launch is done: from now on the cluster's status is what counts.
  state.launched = true;
  return observation;
}

export const listSkyPilotInstances = (accounts: InstanceAccounts) =>
  accounts.instances(async (access) =>
    (await new SkyPilotClient(access).status(null)).map((record) => ({
      replicaId: replicaIdOfCluster(accounts.installation, record.name),
      providerInstanceId: record.name,
    })),
  );
