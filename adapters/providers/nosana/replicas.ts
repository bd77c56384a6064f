// One Nosana deployment per replica (replicas: 1), named after the platform's deployment and
// replica, so scaling is the reconciler adding or stopping replicas, and a restart finds each one
// by name. The name is the provider instance id (the worker's heartbeats carry it too); Nosana's
// own deployment id is looked up by name once and remembered. Stop on terminate, then delete, so
// nothing is left at Nosana that could cost money.

import type { ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { containerFor, instanceName, replicaIdOfName } from "../remote-accounts.ts";
import type { RemoteReplicas } from "../remote-provider.ts";
import { NosanaClient, type NosanaDeployment, NosanaError, type NosanaMarket } from "./client.ts";
import { jobDefinitionOf } from "./job-definition.ts";
import { chooseMarket } from "./markets.ts";

/** Minutes a deployment may run before Nosana stops it; INFINITE strategy renews it. */
const defaultTimeoutMinutes = 60;

export async function startNosanaReplica(
  { engines, accounts, states: ids }: NosanaReplicas,
  spec: ReplicaSpec,
): Promise<ReplicaHandle> {
  const client = new NosanaClient(spec.access);
  const name = instanceName(accounts.installation, spec);
  // Idempotent: a replica started before a crash is found again by its name.
  const existing = (await client.listDeployments()).find((d) => d.name === name && isLive(d));
  if (existing) {
    accounts.remember(name, spec.access);
    ids.set(name, existing.id);
    return { replicaId: spec.replicaId, providerInstanceId: name, endpoint: null };
  }
  const market = chooseMarket(await client.markets(), spec);
  const container = containerFor(engines, spec, "nosana", name);
  const timeout =
    typeof spec.configuration.timeout_minutes === "number"
      ? spec.configuration.timeout_minutes
      : defaultTimeoutMinutes;
  const created = await client.createDeployment({
    name,
    market: market.address,
    replicas: 1,
    timeout,
    strategy: "INFINITE",
    job_definition: jobDefinitionOf(container),
  });
  accounts.remember(name, spec.access);
  ids.set(name, created.id);
  if (created.status === "DRAFT") await client.start(created.id);
  return { replicaId: spec.replicaId, providerInstanceId: name, endpoint: null };
}

/** Nosana deployment ids by instance name, as far as this process has seen them. */
export type NosanaIds = Map<string, string>;
/** What the replica functions work with; the state of an instance is its Nosana deployment id. */
export type NosanaReplicas = RemoteReplicas<string>;

/** The Nosana deployment id of an instance name; undefined when Nosana holds none of that name. */
export async function nosanaIdOf(
  client: NosanaClient,
  ids: NosanaIds,
  name: string,
): Promise<string | undefined> {
  const known = ids.get(name);
  if (known) return known;
  const found = (await client.listDeployments())
    .filter((d) => d.name === name && d.status !== "ARCHIVED")
    .at(-1);
  if (found) ids.set(name, found.id);
  return found?.id;
}

const isLive = (d: NosanaDeployment) =>
  !["STOPPED", "ARCHIVED", "ERROR", "INSUFFICIENT_FUNDS"].includes(d.status);

export async function stopNosanaReplica(
  { accounts, states: ids }: NosanaReplicas,
  handle: ReplicaHandle,
): Promise<void> {
  const client = new NosanaClient(await accounts.of(handle));
  const name = handle.providerInstanceId;
  const id = await nosanaIdOf(client, ids, name);
  if (!id) return;
  try {
    const d = await client.getDeployment(id);
    if (d.status === "RUNNING" || d.status === "STARTING") await client.stop(id);
    // Wait for the stop to land, so nothing runs (or bills) once this returns.
    const deadline = Date.now() + 5 * 60_000;
    let status = d.status;
    while (["RUNNING", "STARTING", "STOPPING"].includes(status) && Date.now() < deadline) {
      await Bun.sleep(200);
      status = (await client.getDeployment(id)).status;
    }
    await client.remove(id);
  } catch (error) {
    if (!(error instanceof NosanaError && error.status === 404)) throw error;
  }
  ids.delete(name);
  accounts.forget(name);
}

export async function inspectNosanaReplica(
  { accounts, states: ids }: NosanaReplicas,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  accounts.remember(handle.providerInstanceId, spec.access);
  const client = new NosanaClient(spec.access);
  const id = await nosanaIdOf(client, ids, handle.providerInstanceId);
  if (!id) return { phase: "gone" };
  let d: NosanaDeployment;
  try {
    d = await client.getDeployment(id);
  } catch (error) {
    if (error instanceof NosanaError && error.status === 404) return { phase: "gone" };
    throw error;
  }
  switch (d.status) {
    case "ERROR":
      return { phase: "failed", reason: `Nosana deployment ERROR: ${await lastError(client, d.id)}` };
    case "INSUFFICIENT_FUNDS":
      return { phase: "failed", reason: "Nosana: insufficient funds (credits) for this market" };
    case "STOPPED":
    case "ARCHIVED":
      return { phase: "exited", reason: `Nosana deployment ${d.status}` };
    case "RUNNING": {
      const endpoint = d.endpoints.find((e) => e.online);
      if (!endpoint) return { phase: "starting" };
      const market = (await marketsOf(client, spec)).find((m) => m.address === d.market);
      return {
        phase: "ready",
        endpoint: `${endpoint.url.replace(/\/+$/, "")}/v1`,
        costPerHour: market?.usd_reward_per_hour ?? null,
      };
    }
    default:
      return { phase: "starting" };
  }
}

/** Market prices change slowly: one GET /markets/ per account every five minutes serves every replica. */
const marketCache = new Map<string, { at: number; markets: NosanaMarket[] }>();
async function marketsOf(client: NosanaClient, spec: ReplicaSpec): Promise<NosanaMarket[]> {
  const key = JSON.stringify([spec.access.settings.base_url ?? null, spec.access.credentials?.api_key]);
  const cached = marketCache.get(key);
  if (cached && Date.now() - cached.at < 5 * 60_000) return cached.markets;
  const markets = await client.markets();
  marketCache.set(key, { at: Date.now(), markets });
  return markets;
}

async function lastError(client: NosanaClient, id: string): Promise<string> {
  const events = await client.events(id).catch(() => []);
  const failing = events.filter((e) => /error|fail/i.test(`${e.type} ${e.message}`));
  return (failing.at(-1) ?? events.at(-1))?.message ?? "no reason given";
}

export const listNosanaInstances = ({ accounts, states: ids }: NosanaReplicas) =>
  accounts.instances(async (access) =>
    (await new NosanaClient(access).listDeployments()).map((d) => {
      const replicaId = d.status === "ARCHIVED" ? undefined : replicaIdOfName(accounts.installation, d.name);
      if (replicaId) ids.set(d.name, d.id);
      return { replicaId, providerInstanceId: d.name };
    }),
  );
