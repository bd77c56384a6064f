// The Deployment (one pod) and the Service of one replica. Labels carry this installation, the
// deployment and the replica, so a restart finds it and the orphan scan knows what is ours. GPUs as
// `nvidia.com/gpu` limits; the allowed GPU types as the node label `nvidia.com/gpu.product` (GPU
// feature discovery; `settings.gpu_label` to use another): the values are the cluster's own product
// names that match the pool's allowed_gpu_types (resolved from the nodes, see replicas.ts).
import type { V1Deployment, V1Service } from "@kubernetes/client-node";
import type { ContainerSpec } from "../../engines/engine.ts";
import type { ReplicaSpec } from "../provider.ts";

export const labelKeys = {
  installation: "llmp.io/installation",
  deployment: "llmp.io/deployment",
  replica: "llmp.io/replica",
} as const;

export const labelsOf = (installation: string, spec: Pick<ReplicaSpec, "deploymentId" | "replicaId">) => ({
  [labelKeys.installation]: installation,
  [labelKeys.deployment]: spec.deploymentId,
  [labelKeys.replica]: spec.replicaId,
});

export function deploymentManifest(p: {
  name: string;
  labels: Record<string, string>;
  container: ContainerSpec;
  gpuLabel: string;
  /** The cluster's GPU products this replica may land on; empty: anywhere. */
  gpuProducts: string[];
}): V1Deployment {
  const { container } = p;
  const gpuLimits = container.gpus > 0 ? { "nvidia.com/gpu": String(container.gpus) } : undefined;
  const [onlyProduct] = p.gpuProducts;
  const affinity =
    p.gpuProducts.length > 1
      ? {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                { matchExpressions: [{ key: p.gpuLabel, operator: "In", values: p.gpuProducts }] },
              ],
            },
          },
        }
      : undefined;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: p.name, labels: p.labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: p.labels },
      template: {
        metadata: { labels: p.labels },
        spec: {
          ...(p.gpuProducts.length === 1 && onlyProduct !== undefined
            ? { nodeSelector: { [p.gpuLabel]: onlyProduct } }
            : {}),
          ...(affinity ? { affinity } : {}),
          containers: [
            {
              name: "engine",
              image: container.image,
              ...(container.command ? { command: container.command } : {}),
              args: container.args,
              env: Object.entries(container.env).map(([name, value]) => ({ name, value })),
              ports: [{ name: "http", containerPort: container.port }],
              ...(gpuLimits ? { resources: { limits: gpuLimits } } : {}),
              readinessProbe: {
                httpGet: { path: container.healthPath, port: container.port },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              ...(container.shmMib ? { volumeMounts: [{ name: "shm", mountPath: "/dev/shm" }] } : {}),
            },
          ],
          // Engines that share tensors between processes need more than the 64 MiB default.
          ...(container.shmMib
            ? {
                volumes: [
                  { name: "shm", emptyDir: { medium: "Memory", sizeLimit: `${container.shmMib}Mi` } },
                ],
              }
            : {}),
        },
      },
    },
  };
}

export function serviceManifest(p: {
  name: string;
  labels: Record<string, string>;
  port: number;
}): V1Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: p.name, labels: p.labels },
    spec: {
      selector: p.labels,
      ports: [{ name: "http", port: p.port, targetPort: p.port }],
    },
  };
}
