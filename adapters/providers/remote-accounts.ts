// What the remote providers (nosana, akash, skypilot) share: finding the organization's account
// for a replica when the interface hands them only a handle (stopReplica, listInstances), and the
// engine's container for a replica. The interface gives `access` with specs but not with handles,
// so the provider remembers the access it saw per instance, and asks the platform for the rest
// (after a restart, or for instances it never saw).
import type { EngineId, ProviderId } from "#core/domain.ts";
import type { ContainerSpec, Engine } from "../engines/engine.ts";
import type { ProviderAccess, ReplicaSpec } from "./provider.ts";

/** How a provider finds the organizations' accounts it works for (filled by the platform). */
export interface AccountDirectory {
  /**
   * A short tag of this installation (all its processes share it), put in every name at the
   * provider, so the orphan scan never touches what another installation on the same account runs.
   */
  installation: string;
  /** The access of the organization that owns this replica; undefined when the replica is unknown. */
  ofReplica(provider: ProviderId, replicaId: string): Promise<ProviderAccess | undefined>;
  /** Every configured account of this provider (one per organization that stored credentials). */
  all(provider: ProviderId): Promise<ProviderAccess[]>;
}

export const noAccounts: AccountDirectory = {
  installation: "00000000",
  ofReplica: async () => undefined,
  all: async () => [],
};

/** Remembers which account an instance lives in, so a stop finds it without the spec. */
export class InstanceAccounts {
  private readonly byInstance = new Map<string, ProviderAccess>();

  constructor(
    private readonly provider: ProviderId,
    private readonly directory: AccountDirectory,
  ) {}

  get installation(): string {
    return this.directory.installation;
  }

  remember(instanceId: string, access: ProviderAccess) {
    this.byInstance.set(instanceId, access);
  }

  forget(instanceId: string) {
    this.byInstance.delete(instanceId);
  }

  async of(handle: { replicaId: string; providerInstanceId: string }): Promise<ProviderAccess> {
    const known =
      this.byInstance.get(handle.providerInstanceId) ??
      (await this.directory.ofReplica(this.provider, handle.replicaId));
    if (!known?.credentials) {
      throw new Error(`no ${this.provider} credentials found for instance ${handle.providerInstanceId}`);
    }
    return known;
  }

  /** Each distinct account once (organizations may share one key). */
  async accounts(): Promise<ProviderAccess[]> {
    const seen = new Map<string, ProviderAccess>();
    for (const access of [...(await this.directory.all(this.provider)), ...this.byInstance.values()]) {
      if (!access.credentials) continue;
      seen.set(JSON.stringify([access.settings.base_url ?? null, access.credentials]), access);
    }
    return [...seen.values()];
  }

  /**
   * The instances this installation runs in each account (and in `more`), as `listOf` names them
   * there (a replica id of undefined: not one of ours). An account that cannot be asked (an
   * unreachable server, a bad key) must not hide the others' orphans: it counts as empty. Each
   * instance's account is remembered, so its stop finds it.
   */
  async instances(
    listOf: (
      access: ProviderAccess,
    ) => Promise<{ replicaId: string | undefined; providerInstanceId: string }[]>,
    more: ProviderAccess[] = [],
  ): Promise<{ replicaId: string; providerInstanceId: string }[]> {
    const found: { replicaId: string; providerInstanceId: string }[] = [];
    for (const access of [...(await this.accounts()), ...more]) {
      for (const { replicaId, providerInstanceId } of await listOf(access).catch(() => [])) {
        if (!replicaId) continue;
        this.remember(providerInstanceId, access);
        found.push({ replicaId, providerInstanceId });
      }
    }
    return found;
  }
}

/** The engine's container for one replica, with the heartbeat variables the worker reports with. */
export function containerFor(
  engines: Partial<Record<EngineId, Engine>>,
  spec: ReplicaSpec,
  provider: ProviderId,
  providerInstanceName: string,
): ContainerSpec {
  const engine = engines[spec.engine];
  if (!engine?.container) throw new Error(`the ${spec.engine} engine has no container form`);
  // The worker's heartbeats name it by this id, and the pool's provider.
  const env: Record<string, string> = { PROVIDER_INSTANCE_ID: providerInstanceName, POOL_PROVIDER: provider };
  if (spec.heartbeat) {
    env.HEARTBEAT_URL = spec.heartbeat.url;
    env.NODE_TOKEN = spec.heartbeat.nodeToken;
    env.HEARTBEAT_INTERVAL_MS = String(spec.heartbeat.intervalMs);
  }
  return engine.container({
    modelSource: spec.modelSource,
    modelName: spec.deploymentName,
    gpus: spec.gpuPerReplica,
    configuration: spec.configuration,
    env,
  });
}

/**
 * The name a replica carries at the provider: this installation, the deployment and the replica, so
 * a restart finds it and the orphan scan knows it is ours.
 */
export const instanceName = (installation: string, spec: Pick<ReplicaSpec, "deploymentId" | "replicaId">) =>
  `llmp-${installation}-${spec.deploymentId}-${spec.replicaId}`;

/** The replica id back from such a name; undefined for what this installation did not create. */
export function replicaIdOfName(installation: string, name: string): string | undefined {
  const prefix = `llmp-${installation}-`;
  if (!name.startsWith(prefix)) return undefined;
  return /^[0-9a-f-]{36}-([0-9a-f-]{36})$/.exec(name.slice(prefix.length))?.[1];
}

/**
 * `allowed_gpu_types` matching: case-insensitive, by whole words, ignoring spaces and dashes between
 * them ("RTX 4090" and "rtx4090" allow "NVIDIA GeForce RTX 4090"; "A100" allows "NVIDIA A100 80GB";
 * "A10" does not allow "A100").
 */
const words = (name: string) =>
  name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
export function gpuMatches(allowed: string, offered: string): boolean {
  const want = words(allowed).join("");
  const have = words(offered);
  for (let i = 0; i < have.length; i++) {
    let joined = "";
    for (let j = i; j < have.length && joined.length < want.length; j++) {
      joined += have[j];
      if (joined === want) return true;
    }
  }
  return false;
}
export const gpuAllowed = (allowed: readonly string[], offered: readonly string[]) =>
  allowed.length === 0 || offered.some((g) => allowed.some((a) => gpuMatches(a, g)));
