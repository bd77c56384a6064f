// One Nosana deployment per replica (replicas: 1), named after the platform's deployment and
// replica, so scaling is the reconciler adding or stopping replicas, and a restart finds each one
// by name. Stop on terminate, then delete, so nothing is left at Nosana that could cost money.

import type { EngineId } from "../../../db/schema/deployments.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { containerFor, type InstanceAccounts, instanceName, replicaIdOfName } from "../remote-accounts.ts";
import { NosanaClient, type NosanaDeployment, NosanaError } from "./client.ts";
import { jobDefinitionOf } from "./job-definition.ts";
import { chooseMarket } from "./markets.ts";

/** Minutes a deployment may run before Nosana stops it; INFINITE strategy renews it. */
const defaultTimeoutMinutes = 60;

export async function startNosanaReplica(
  engines: Partial<Record<EngineId, Engine>>,
  accounts: InstanceAccounts,
  spec: ReplicaSpec,
): Promise<ReplicaHandle> {
  const client = new NosanaClient(spec.access);
  const name = instanceName(spec);
  // Idempotent: a replica started before a crash is found again by its name.
  const existing = (await client.listDeployments()).find((d) => d.name === name && isLive(d));
  if (existing) {
    accounts.remember(existing.id, spec.access);
    return { replicaId: spec.replicaId, providerInstanceId: existing.id, endpoint: null };
  }
  const market = chooseMarket(await client.markets(), spec);
  const container = containerFor(engines, spec, name);
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
  accounts.remember(created.id, spec.access);
  if (created.status === "DRAFT") await client.start(created.id);
  return { replicaId: spec.replicaId, providerInstanceId: created.id, endpoint: null };
}

const isLive = (d: NosanaDeployment) =>
  !["STOPPED", "ARCHIVED", "ERROR", "INSUFFICIENT_FUNDS"].includes(d.status);

export async function stopNosanaReplica(accounts: InstanceAccounts, handle: ReplicaHandle): Promise<void> {
  const client = new NosanaClient(await accounts.of(handle));
  const id = handle.providerInstanceId;
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
  accounts.forget(id);
}

export async function inspectNosanaReplica(
  accounts: InstanceAccounts,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  accounts.remember(handle.providerInstanceId, spec.access);
  const client = new NosanaClient(spec.access);
  let d: NosanaDeployment;
  try {
    d = await client.getDeployment(handle.providerInstanceId);
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
      const market = (await client.markets()).find((m) => m.address === d.market);
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

async function lastError(client: NosanaClient, id: string): Promise<string> {
  const events = await client.events(id).catch(() => []);
  const failing = events.filter((e) => /error|fail/i.test(`${e.type} ${e.message}`));
  return (failing.at(-1) ?? events.at(-1))?.message ?? "no reason given";
}

export async function listNosanaInstances(
  accounts: InstanceAccounts,
): Promise<{ replicaId: string; providerInstanceId: string }[]> {
  const found: { replicaId: string; providerInstanceId: string }[] = [];
  for (const access of await accounts.accounts()) {
    const client = new NosanaClient(access);
    for (const d of await client.listDeployments()) {
      const replicaId = replicaIdOfName(d.name);
      if (!replicaId || d.status === "ARCHIVED") continue;
      accounts.remember(d.id, access);
      found.push({ replicaId, providerInstanceId: d.id });
    }
  }
  return found;
}
