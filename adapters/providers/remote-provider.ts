// The shape the remote providers (akash, nosana, skypilot, kubernetes) share, so each states only
// how it differs: its summary, how it checks a pool's account, what it offers, and its replicas.
// They all run the engines' containers on rented GPUs, hold nothing per pool (a replica's resources
// go when it stops) and price what they run.
import type { EngineId, ProviderId } from "#core/domain.ts";
import type { Engine } from "../engines/engine.ts";
import type { ComputeProvider, ProviderAccess, ProviderCapabilities, ProviderResources } from "./provider.ts";
import { type AccountDirectory, InstanceAccounts } from "./remote-accounts.ts";

/** What the registry hands every remote provider. */
export interface RemoteProviderOptions {
  engines: Partial<Record<EngineId, Engine>>;
  accounts: AccountDirectory;
}

/**
 * What one remote provider's replica functions work with: the engines (for the containers), the
 * organizations' accounts by instance, and what this process knows of each instance beyond its id
 * (`State`, by provider instance id; gone after a restart, so each function copes without it).
 */
export interface RemoteReplicas<State> {
  engines: Partial<Record<EngineId, Engine>>;
  accounts: InstanceAccounts;
  states: Map<string, State>;
}

export const remoteReplicas = <State>(
  id: ProviderId,
  options: RemoteProviderOptions,
): RemoteReplicas<State> => ({
  engines: options.engines,
  accounts: new InstanceAccounts(id, options.accounts),
  states: new Map(),
});

export const remoteCapabilities: ProviderCapabilities = {
  engines: ["vllm", "sglang", "tgi", "llama.cpp"],
  gpus: true,
  pricing: true,
  needsModelFile: false,
};

export interface RemoteProviderParts
  extends Pick<
    ComputeProvider,
    "startReplica" | "stopReplica" | "inspectReplica" | "readLogs" | "listInstances"
  > {
  id: ProviderId;
  summary: string;
  /**
   * Checks a new pool's account now rather than at its first deployment: throws what is wrong,
   * which becomes the pool's failure reason.
   */
  checkAccess(access: ProviderAccess): Promise<void>;
  /** The failure reason of a check that threw (default: the error's message). */
  describeFailure?(error: unknown): string;
  /** What `listResources` says when the provider has nothing more to offer. */
  notes: string[];
  /** What the asking organization's account offers (GPUs and their prices), when it can be asked. */
  offers?(access: ProviderAccess | undefined): Promise<Partial<ProviderResources> | undefined>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createRemoteProvider(parts: RemoteProviderParts): ComputeProvider {
  const { id, summary, notes, checkAccess, offers, describeFailure = messageOf } = parts;
  return {
    id,
    summary,
    capabilities: remoteCapabilities,
    async provisionPool(pool) {
      try {
        await checkAccess(pool.access);
        return { state: "Active" };
      } catch (error) {
        return { state: "Failed", reason: describeFailure(error) };
      }
    },
    async deprovisionPool() {
      // Nothing is held per pool: each replica's resources at the provider go when it stops.
    },
    async listResources(access) {
      const offered = await offers?.(access);
      return { provider: id, cpu: null, memory: null, gpus: [], notes, ...offered };
    },
    startReplica: parts.startReplica,
    stopReplica: parts.stopReplica,
    inspectReplica: parts.inspectReplica,
    readLogs: parts.readLogs,
    ...(parts.listInstances ? { listInstances: parts.listInstances } : {}),
  };
}
