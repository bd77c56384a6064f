// The one interface every compute provider implements: local processes, external (hosted) endpoints,
// Kubernetes, SkyPilot, Akash and Nosana (one folder each beside this file). The reconciler is its only caller; it holds no state of its own that the
// database cannot rebuild, so every method must be safe to call again (idempotent).

import type { EngineId, ProviderId } from "#core/domain.ts";
import type { FieldProblem } from "#core/errors.ts";
import type { DeploymentConfiguration, ProviderSettings, SchedulingPolicy } from "#core/options.ts";

export interface ProviderCapabilities {
  /** Engines this provider can run; a deployment with another engine is refused (400 `engine`). */
  engines: readonly EngineId[];
  /** Whether it can place replicas on GPUs (`gpu_per_replica` > 0). */
  gpus: boolean;
  /** Whether it prices resources, so `max_cost_per_hour` can be enforced. */
  pricing: boolean;
  /** Whether a model file must be readable by the platform before deploying (a local path). */
  needsModelFile: boolean;
  /** false where nothing runs an image (hosted upstreams): `image` may be left out. Default true. */
  needsImage?: boolean;
}

/** A pool as the provider sees it. */
export interface PoolSpec {
  poolId: string;
  orgId: string;
  name: string;
  provider: ProviderId;
  allowedGpuTypes: readonly string[];
  /** US dollars per hour; null means no ceiling. */
  maxCostPerHour: number | null;
  isDedicated: boolean;
  /** The pool's id at the provider, when the user brought one. */
  providerPoolId: string | null;
  schedulingPolicy: SchedulingPolicy;
  /** The organization's stored configuration for this provider (security plane, decrypted). */
  access: ProviderAccess;
}

/**
 * What the organization stored for this provider (`/management/provider-configs`): credentials in
 * clear (decrypted only for the adapter's call, never logged) and non-secret settings.
 */
export interface ProviderAccess {
  credentials: Readonly<Record<string, string>> | undefined;
  settings: Readonly<ProviderSettings>;
}

export type PoolProvisioning =
  | { state: "Active"; providerPoolId?: string | undefined }
  | { state: "Provisioning" }
  | { state: "Failed"; reason: string };

/** What a provider offers (GET /deployment/provider/resources). */
export interface ProviderResources {
  provider: ProviderId;
  cpu: { cores: number; model: string | null } | null;
  memory: { total_mib: number; free_mib: number } | null;
  gpus: { name: string; memory_mib: number | null; count: number; price_per_hour: number | null }[];
  /** What else the provider wants to say (e.g. how endpoints are given for `external`). */
  notes: string[];
}

/** Where and how one replica runs: everything a provider needs, nothing it must look up itself. */
export interface ReplicaSpec {
  replicaId: string;
  deploymentId: string;
  /** The deployment name: the `model` clients send. */
  deploymentName: string;
  index: number;
  engine: EngineId;
  /** Absolute path of the model file (providers with `needsModelFile`). */
  modelPath: string | undefined;
  /**
   * The deployment's model source as the user gave it (`inference_model`, registry:// resolved to the
   * registered artifact URI when it can be): what a container engine downloads or mounts.
   */
  modelSource: string;
  /** The deployment's `configuration` (engine and provider options). */
  configuration: DeploymentConfiguration;
  gpuPerReplica: number;
  placement: {
    poolId: string;
    allowedGpuTypes: readonly string[];
    maxCostPerHour: number | null;
    isDedicated: boolean;
    schedulingPolicy: SchedulingPolicy;
  };
  /** Where the replica reports its health, when the provider's workers push heartbeats. */
  heartbeat: { url: string; nodeToken: string; intervalMs: number } | undefined;
  /** The pool's provider configuration (credentials and settings). */
  access: ProviderAccess;
}

/** What the database keeps of a running replica, enough to find it again after a restart. */
export interface ReplicaHandle {
  replicaId: string;
  providerInstanceId: string;
  /** OpenAI base URL (…/v1) once known. */
  endpoint: string | null;
}

export type ReplicaObservation =
  /** Launched, not serving yet. */
  | {
      phase: "starting";
      /** Why it is still waiting, when the provider says (e.g. the scheduler finds no node with room). */
      waitingFor?: string;
    }
  | {
      phase: "ready";
      endpoint: string;
      /** US dollars per hour this replica costs, when the provider prices it. */
      costPerHour?: number | null;
    }
  /** It stopped on its own; starting it again may help. */
  | { phase: "exited"; reason: string }
  /** It cannot start (missing or corrupt model): starting it again will not help. */
  | { phase: "failed"; reason: string }
  /** The provider knows nothing of it (e.g. the machine rebooted). */
  | { phase: "gone" };

export interface LogLine {
  ts: Date;
  stream: "stdout" | "stderr";
  line: string;
}

export interface LogChunk {
  lines: LogLine[];
  /** Pass it back to read on from here. */
  cursor: string;
}

export interface ComputeProvider {
  id: ProviderId;
  summary: string;
  capabilities: ProviderCapabilities;
  /** Replicas when the request gives none (1 unless the provider knows better). */
  defaultReplicas?(configuration: DeploymentConfiguration): number;
  /** Provider-specific checks of a deployment request, each naming the field. */
  validateDeployment?(input: {
    replicas: number;
    gpuPerReplica: number;
    configuration: DeploymentConfiguration;
  }): FieldProblem[];
  /**
   * Upstream servers the deployment's configuration points the platform at (`external`): setting them
   * takes the provider-configuration permission, and EXTERNAL_ENDPOINTS_ALLOW_PRIVATE may forbid
   * internal addresses among them.
   */
  upstreamEndpoints?(configuration: DeploymentConfiguration): string[];
  provisionPool(pool: PoolSpec): Promise<PoolProvisioning>;
  deprovisionPool(pool: PoolSpec): Promise<void>;
  /** What it offers; `access` is the asking organization's configuration (remote providers' prices). */
  listResources(access?: ProviderAccess): Promise<ProviderResources>;
  startReplica(spec: ReplicaSpec): Promise<ReplicaHandle>;
  /** Stops it and waits until it is gone. Stopping what is already gone is fine. */
  stopReplica(handle: ReplicaHandle): Promise<void>;
  inspectReplica(handle: ReplicaHandle, spec: ReplicaSpec): Promise<ReplicaObservation>;
  /** New output since `cursor` (undefined: from now on, or the start when the provider keeps it). */
  readLogs(handle: ReplicaHandle, cursor: string | undefined): Promise<LogChunk>;
  /**
   * Instances this provider runs for this installation, whether or not the database knows them,
   * so the reconciler can stop orphans. Providers that cannot list omit it.
   */
  listInstances?(): Promise<{ replicaId: string; providerInstanceId: string }[]>;
}
