// One Akash deployment (dseq) per replica. Start creates it from the SDL; bids arrive over the next
// 30-60 s, so each inspection moves it on: bids -> the cheapest one under the ceiling -> lease
// (which sends the manifest) -> the lease's service URI as the endpoint. Close on terminate, and on
// a failure, so no escrow keeps paying a provider for nothing.
import type { ProviderSettings } from "#core/options.ts";
import type { ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { containerFor, instanceName } from "../remote-accounts.ts";
import type { RemoteReplicas } from "../remote-provider.ts";
import { chooseBid } from "./bids.ts";
import { AkashClient, AkashError } from "./client.ts";
import { usdPerHour } from "./pricing.ts";
import { sdlOf, serviceName } from "./sdl.ts";

/** What this process knows of a replica beyond its dseq. */
export interface AkashReplicaState {
  /** The manifest the Console returned with the deployment: needed to create the lease. */
  manifest: string | undefined;
  createdAt: number;
  notes: { ts: Date; line: string }[];
}

const settingNumber = (settings: Readonly<ProviderSettings>, key: string, fallback: number) => {
  const value = settings[key];
  return typeof value === "number" ? value : fallback;
};

/** Akash GPU model names: lower case, no vendor ("NVIDIA RTX 4090" -> "rtx4090"). */
export const akashGpuModel = (name: string) =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && w !== "nvidia" && w !== "geforce")
    .join("");

export type AkashReplicas = RemoteReplicas<AkashReplicaState>;

export async function startAkashReplica(
  { engines, accounts, states }: AkashReplicas,
  spec: ReplicaSpec,
): Promise<ReplicaHandle> {
  const client = new AkashClient(spec.access);
  const container = containerFor(engines, spec, "akash", instanceName(accounts.installation, spec));
  const c = spec.configuration;
  const sdl = sdlOf({
    container,
    gpuModels: spec.placement.allowedGpuTypes.map(akashGpuModel),
    cpuUnits: typeof c.cpu_units === "number" ? c.cpu_units : 4,
    memoryMib: typeof c.memory_mib === "number" ? c.memory_mib : 16_384,
    storageGib: typeof c.storage_gib === "number" ? c.storage_gib : 50,
  });
  const created = await client.createDeployment(sdl, settingNumber(spec.access.settings, "deposit_usd", 5));
  accounts.remember(created.dseq, spec.access);
  states.set(created.dseq, {
    manifest: created.manifest,
    createdAt: Date.now(),
    notes: [{ ts: new Date(), line: `[akash] deployment ${created.dseq} created; waiting for bids` }],
  });
  return { replicaId: spec.replicaId, providerInstanceId: created.dseq, endpoint: null };
}

export async function stopAkashReplica(
  { accounts, states }: AkashReplicas,
  handle: ReplicaHandle,
): Promise<void> {
  const client = new AkashClient(await accounts.of(handle));
  try {
    const d = await client.getDeployment(handle.providerInstanceId);
    if (d.deployment.state !== "closed") await client.close(handle.providerInstanceId);
  } catch (error) {
    if (!(error instanceof AkashError && error.status === 404)) throw error;
  }
  accounts.forget(handle.providerInstanceId);
  states.delete(handle.providerInstanceId);
}

export async function inspectAkashReplica(
  { accounts, states }: AkashReplicas,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  const dseq = handle.providerInstanceId;
  accounts.remember(dseq, spec.access);
  const client = new AkashClient(spec.access);
  let d: Awaited<ReturnType<AkashClient["getDeployment"]>>;
  try {
    d = await client.getDeployment(dseq);
  } catch (error) {
    if (error instanceof AkashError && error.status === 404) return { phase: "gone" };
    throw error;
  }
  if (d.deployment.state === "closed") return { phase: "exited", reason: `Akash deployment ${dseq} closed` };
  const state = states.get(dseq) ?? { manifest: undefined, createdAt: Date.now(), notes: [] };
  states.set(dseq, state);
  const note = (line: string) => state.notes.push({ ts: new Date(), line: `[akash] ${line}` });
  const lease = d.leases.find((l) => l.state === "active");
  if (!lease) {
    if (!state.manifest) {
      // Created by a process that is gone, before its lease: without the manifest no lease can be
      // made, so close it and let the reconciler start the replica again.
      await client.close(dseq);
      return { phase: "exited", reason: `Akash deployment ${dseq} had no lease when this process started` };
    }
    const chosen = chooseBid(await client.bids(dseq), spec);
    const waitedS = (Date.now() - state.createdAt) / 1000;
    const bidWaitS = settingNumber(spec.access.settings, "bid_wait_s", 60);
    if (chosen === undefined || ("error" in chosen && waitedS < bidWaitS)) {
      if (waitedS > settingNumber(spec.access.settings, "bid_timeout_s", 300)) {
        await client.close(dseq);
        return {
          phase: "failed",
          reason: `no Akash provider bid within ${Math.round(waitedS)} s for the pool's allowed_gpu_types (${spec.placement.allowedGpuTypes.join(", ") || "any"})`,
        };
      }
      return { phase: "starting" };
    }
    if ("error" in chosen) {
      note(chosen.error);
      await client.close(dseq);
      return { phase: "failed", reason: chosen.error };
    }
    await client.createLease(state.manifest, chosen.id);
    note(
      `lease with provider ${chosen.id.provider}${chosen.usdPerHour === null ? "" : ` at $${chosen.usdPerHour}/h`}; manifest sent`,
    );
    return { phase: "starting" };
  }
  const service = lease.status?.services?.[serviceName];
  const uri = service?.uris?.[0];
  if (!uri || (service?.ready_replicas ?? 0) < 1) return { phase: "starting" };
  const base = /^https?:\/\//.test(uri) ? uri : `http://${uri}`;
  return {
    phase: "ready",
    endpoint: `${base.replace(/\/+$/, "")}/v1`,
    costPerHour: usdPerHour(lease.price, spec.access.settings),
  };
}
