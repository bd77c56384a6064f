// The kubernetes adapter's pure parts: pod status to observation, the endpoint modes, and the
// manifests (shared memory for engines that ask for it, a single GPU product as nodeSelector).
import { describe, expect, test } from "bun:test";
import type { V1Pod } from "@kubernetes/client-node";
import { engines } from "#adapters/engines/index.ts";
import type { KubeApi } from "#adapters/providers/kubernetes/client.ts";
import { deploymentManifest } from "#adapters/providers/kubernetes/manifests.ts";
import { endpointOf, podObservation } from "#adapters/providers/kubernetes/replicas.ts";
import { coresOf, mibOf } from "#adapters/providers/kubernetes/resources.ts";

const pod = (status: V1Pod["status"]): V1Pod => ({ metadata: { name: "p" }, status });

describe("kubernetes pods", () => {
  test("no pod or Pending -> starting; Running and Ready -> ready; Running not Ready -> starting", () => {
    expect(podObservation([])).toEqual({ phase: "starting" });
    expect(podObservation([pod({ phase: "Pending" })])).toEqual({ phase: "starting" });
    expect(
      podObservation([pod({ phase: "Running", conditions: [{ type: "Ready", status: "False" }] })]),
    ).toEqual({ phase: "starting" });
    expect(podObservation([pod({ phase: "Running", conditions: [{ type: "Ready", status: "True" }] })])).toBe(
      "ready",
    );
  });

  test("a pod the scheduler cannot place is starting, and says why", () => {
    const message = "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";
    expect(
      podObservation([
        pod({
          phase: "Pending",
          conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message }],
        }),
      ]),
    ).toEqual({ phase: "starting", waitingFor: `Unschedulable: ${message}` });
  });

  test("ImagePullBackOff and ErrImagePull -> failed with the reason; CrashLoopBackOff -> exited", () => {
    for (const reason of ["ImagePullBackOff", "ErrImagePull"]) {
      const seen = podObservation([
        pod({
          phase: "Pending",
          containerStatuses: [
            {
              name: "engine",
              image: "vllm/vllm-openai:nope",
              imageID: "",
              ready: false,
              restartCount: 0,
              state: { waiting: { reason, message: "manifest unknown" } },
            },
          ],
        }),
      ]);
      expect(seen).toEqual({
        phase: "failed",
        reason: `Kubernetes cannot pull the image vllm/vllm-openai:nope: ${reason}: manifest unknown`,
      });
    }
    const crash = podObservation([
      pod({
        phase: "Running",
        containerStatuses: [
          {
            name: "engine",
            image: "x",
            imageID: "",
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 40s" } },
          },
        ],
      }),
    ]);
    expect(crash).toMatchObject({ phase: "exited" });
  });

  test("endpoint modes: service proxy (API server or proxy_url) and cluster DNS", () => {
    const api = { namespace: "llm", server: "https://k8s.example:6443", inCluster: false } as KubeApi;
    expect(endpointOf(api, { credentials: {}, settings: {} }, "llmp-x", 8000)).toBe(
      "https://k8s.example:6443/api/v1/namespaces/llm/services/llmp-x:8000/proxy/v1",
    );
    expect(
      endpointOf(api, { credentials: {}, settings: { proxy_url: "http://127.0.0.1:8001/" } }, "llmp-x", 80),
    ).toBe("http://127.0.0.1:8001/api/v1/namespaces/llm/services/llmp-x:80/proxy/v1");
    expect(
      endpointOf(api, { credentials: {}, settings: { endpoint_mode: "cluster-dns" } }, "llmp-x", 30000),
    ).toBe("http://llmp-x.llm.svc.cluster.local:30000/v1");
    expect(endpointOf({ ...api, inCluster: true }, { credentials: {}, settings: {} }, "llmp-x", 8080)).toBe(
      "http://llmp-x.llm.svc.cluster.local:8080/v1",
    );
  });

  test("manifest: one GPU product as nodeSelector, vllm's shared memory as a memory-backed /dev/shm", () => {
    const container = engines.vllm?.container?.({
      modelSource: "Qwen/Qwen2.5-0.5B-Instruct",
      modelName: "m",
      gpus: 2,
      configuration: {},
    });
    if (!container) throw new Error("vllm has no container");
    const d = deploymentManifest({
      name: "llmp-x",
      labels: { a: "b" },
      container,
      gpuLabel: "nvidia.com/gpu.product",
      gpuProducts: ["NVIDIA-L4"],
    });
    const spec = d.spec?.template.spec;
    expect(spec?.nodeSelector).toEqual({ "nvidia.com/gpu.product": "NVIDIA-L4" });
    expect(spec?.affinity).toBeUndefined();
    expect(spec?.containers[0]?.resources?.limits).toEqual({ "nvidia.com/gpu": "2" });
    expect(spec?.containers[0]?.volumeMounts).toEqual([{ name: "shm", mountPath: "/dev/shm" }]);
    expect(spec?.volumes?.[0]?.emptyDir).toEqual({ medium: "Memory", sizeLimit: "16384Mi" });
  });

  test("quantities: memory as MiB, CPU cores", () => {
    expect(mibOf("32Gi")).toBe(32768);
    expect(mibOf("16384Mi")).toBe(16384);
    expect(mibOf("1048576Ki")).toBe(1024);
    expect(coresOf("7500m")).toBe(7.5);
    expect(coresOf("8")).toBe(8);
  });
});
