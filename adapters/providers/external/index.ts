// `external`: servers and hosted APIs that already run elsewhere, listed in the deployment's
// `configuration.endpoints`, reached through the wire adapter of the deployment's engine
// (adapters/upstream/wire/). Nothing is launched or stopped; replica i is endpoint i, READY while the
// adapter's probe (with the credential the deployment names) answers.

import type { FieldProblem } from "#core/errors.ts";
import type { DeploymentConfiguration } from "#core/options.ts";
import type { ComputeProvider, ReplicaObservation } from "../provider.ts";
import { answers, normalizeEndpoint, targetOf } from "./client.ts";

export function endpointsOf(configuration: DeploymentConfiguration): string[] {
  const raw = configuration.endpoints;
  return Array.isArray(raw)
    ? raw.filter((e): e is string => typeof e === "string").map(normalizeEndpoint)
    : [];
}

export function createExternalProvider(): ComputeProvider {
  return {
    id: "external",
    summary: "OpenAI-compatible endpoints that already run (configuration.endpoints)",
    capabilities: {
      engines: ["openai-compatible", "anthropic", "gemini"],
      gpus: false,
      pricing: false,
      needsModelFile: false,
      needsImage: false,
    },

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
      // CONTRACTS "Hosted upstreams": never a key inside the deployment itself.
      if (configuration.api_key !== undefined) {
        problems.push({
          field: "configuration.api_key",
          message:
            "a key never sits in a deployment: store it as a named credential of the external provider " +
            "(POST /management/config/providers) and name it in configuration.credential",
        });
      }
      const credential = configuration.credential;
      if (credential !== undefined && (typeof credential !== "string" || credential === "")) {
        problems.push({ field: "configuration.credential", message: "must be a credential's name" });
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
        notes: [
          "Deploy with engine openai-compatible, anthropic or gemini, configuration.endpoints (the servers' base URLs), " +
            "configuration.credential (a credential of the external provider configuration) and inference_model (the upstream's model name).",
        ],
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
      const target = targetOf(spec, endpoint);
      if (!target)
        return { phase: "failed", reason: `this build has no wire adapter for engine ${spec.engine}` };
      return (await answers(target)) ? { phase: "ready", endpoint } : { phase: "starting" };
    },
    async readLogs(_handle, cursor) {
      return { lines: [], cursor: cursor ?? "" };
    },
  };
}
