// The SkyPilot task of a replica: accelerators, spot, ceiling, port, image and labels, and the
// refusal of a container without a command (SkyPilot would ignore the image's entrypoint).
import { expect, test } from "bun:test";
import type { ContainerSpec } from "#adapters/engines/engine.ts";
import type { ReplicaSpec } from "#adapters/providers/provider.ts";
import { taskOf } from "#adapters/providers/skypilot/task.ts";

const spec = {
  engine: "vllm",
  deploymentId: "d",
  replicaId: "r",
  configuration: { use_spot: true },
  placement: { allowedGpuTypes: ["H100"], maxCostPerHour: 9.5 },
} as unknown as ReplicaSpec;
const container: ContainerSpec = {
  image: "vllm/vllm-openai:latest",
  command: ["vllm", "serve"],
  args: ["org/model", "--port", "8000", "--served-model-name", "my model"],
  env: { HF_HOME: "/data" },
  port: 8000,
  healthPath: "/health",
  gpus: 2,
};

test("the task asks for the accelerators, spot, the ceiling, the port, the image and carries the labels", () => {
  const task = JSON.parse(taskOf(spec, container, "llmp-x-r"));
  expect(task.resources).toEqual({
    accelerators: { H100: 2 },
    use_spot: true,
    max_hourly_cost: 9.5,
    ports: [8000],
    image_id: "docker:vllm/vllm-openai:latest",
    labels: { "llmp-deployment": "d", "llmp-replica": "r" },
  });
  expect(task.envs).toEqual({ HF_HOME: "/data" });
  expect(task.run).toBe("vllm serve org/model --port 8000 --served-model-name 'my model'");
});

test("a container without a command is refused, naming the engine", () => {
  expect(() => taskOf(spec, { ...container, command: undefined }, "c")).toThrow(
    "the vllm engine's container gives no command",
  );
});
