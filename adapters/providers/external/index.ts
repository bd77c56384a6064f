// `external`: OpenAI-compatible servers that already run elsewhere, listed in the deployment's
// `configuration.endpoints`. Nothing is launched or stopped; replica i is endpoint i, READY while
// its /v1/models (or /health) answers.
import type { FieldProblem } from "#services/errors.ts";
import type { ComputeProvider, ReplicaObservation } from "../provider.ts";
import { answers, normalizeEndpoint } from "./client.ts";

export function endpointsOf(configuration: Record<string, unknown>): string[] {
  const raw = configuration.endpoints;
  return Array.isArray(raw)
    ? raw.filter((e): e is string => typeof e === "string").map(normalizeEndpoint)
    : [];
}

export function createExternalProvider(): ComputeProvider {
  return {
    id: "external",
    summary: "OpenAI-compatible endpoints that already run (configuration.endpoints)",
    capabilities: { engines: ["openai-compatible"], gpus: false, pricing: false, needsModelFile: false },

    defaultReplicas: (configuration) => Math.max(1, endpointsOf(configuration).length),
    upstreamEndpoints: endpointsOf,

    validateDeployment({ replicas, configuration }) {
      const problems: FieldProblem[] = [];
      const raw = configuration.endpoints;
      if (!Array.isArray(raw) || raw.length === 0) {
        problems.push({
          field: "configuration.endpoints",
          message: "list the URLs of the OpenAI-compatible servers",
        });
        return problems;
      }
      raw.forEach((entry, i) => {
        let ok = false;
        try {
          ok = typeof entry === "string" && ["http:", "https:"].includes(new URL(entry).protocol);
        } catch {}
        if (!ok) problems.push({ field: `configuration.endpoints.${i}`, message: "must be an http(s) URL" });
      });
      if (replicas > raw.length) {
        problems.push({
          field: "replicas",
          message: `at most one replica per endpoint (${raw.length} given)`,
        });
      }
      if (configuration.api_key !== undefined && typeof configuration.api_key !== "string") {
        problems.push({ field: "configuration.api_key", message: "must be a string" });
      }
      return problems;
    },

    async provisionPool() {
      return { state: "Active" };
    },
    async deprovisionPool() {},
    async listResources() {
      return {
        provider: "external",
        cpu: null,
        memory: null,
        gpus: [],
        notes: ["Deploy with engine openai-compatible and configuration.endpoints: the servers' base URLs."],
      };
    },

    async startReplica(spec) {
      const endpoint = endpointsOf(spec.configuration)[spec.index];
      if (!endpoint) throw new Error(`no endpoint for replica ${spec.index} in configuration.endpoints`);
      return { replicaId: spec.replicaId, providerInstanceId: endpoint, endpoint };
    },
    async stopReplica() {
      // Not ours to stop: the platform only stops routing to it.
    },
    async inspectReplica(_handle, spec): Promise<ReplicaObservation> {
      const endpoint = endpointsOf(spec.configuration)[spec.index];
      if (!endpoint) return { phase: "failed", reason: `no endpoint for replica ${spec.index}` };
      const apiKey = typeof spec.configuration.api_key === "string" ? spec.configuration.api_key : undefined;
      return (await answers(endpoint, apiKey)) ? { phase: "ready", endpoint } : { phase: "starting" };
    },
    async readLogs(_handle, cursor) {
      return { lines: [], cursor: cursor ?? "" };
    },
  };
}
