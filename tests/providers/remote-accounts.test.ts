// What the remote providers share: GPU type matching for allowed_gpu_types, and the names that carry
// the deployment and replica ids at the provider (how a restart finds its replicas again).
import { expect, test } from "bun:test";
import {
  gpuAllowed,
  gpuMatches,
  instanceName,
  replicaIdOfName,
} from "#adapters/providers/remote-accounts.ts";

test("allowed_gpu_types match whole words, whatever the spacing, case or vendor prefix", () => {
  expect(gpuMatches("RTX 4090", "NVIDIA GeForce RTX 4090")).toBe(true);
  expect(gpuMatches("rtx4090", "NVIDIA RTX 4090")).toBe(true);
  expect(gpuMatches("A100", "NVIDIA A100 80GB")).toBe(true);
  expect(gpuMatches("a100-80gb", "NVIDIA A100 80GB")).toBe(true);
  expect(gpuMatches("A10", "NVIDIA A100")).toBe(false);
  expect(gpuMatches("H100", "NVIDIA A100")).toBe(false);
  expect(gpuAllowed([], ["anything"])).toBe(true);
  expect(gpuAllowed(["H100", "A100"], ["NVIDIA A100"])).toBe(true);
  expect(gpuAllowed(["H100"], ["NVIDIA A100"])).toBe(false);
});

test("an instance name carries the deployment and replica ids, and gives the replica id back", () => {
  const deploymentId = crypto.randomUUID();
  const replicaId = crypto.randomUUID();
  const name = instanceName("ab12cd34", { deploymentId, replicaId });
  expect(name).toBe(`llmp-ab12cd34-${deploymentId}-${replicaId}`);
  expect(replicaIdOfName("ab12cd34", name)).toBe(replicaId);
  // Another installation's replica on the same account is not ours to stop.
  expect(replicaIdOfName("ffffffff", name)).toBeUndefined();
  expect(replicaIdOfName("ab12cd34", "someone-elses-job")).toBeUndefined();
});
