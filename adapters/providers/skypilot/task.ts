// The SkyPilot task of one replica: the engine's container as the image (`image_id: docker:…`), its
// command as `run`, the accelerators the pool allows (any of them: SkyPilot's optimizer picks the
// cheapest available), spot or on-demand, the pool's ceiling as max_hourly_cost, the engine's port opened, and labels carrying the
// deployment and replica. Written as JSON, which is YAML too.
import type { ContainerSpec } from "../../engines/engine.ts";
import type { ReplicaSpec } from "../provider.ts";

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`);

export function taskOf(spec: ReplicaSpec, container: ContainerSpec, clusterName: string): string {
  // SkyPilot runs `run` inside the image and ignores its entrypoint: without the engine's command
  // the cluster would come up and serve nothing, at a cloud VM's price.
  if (!container.command?.length) {
    throw new Error(
      `the ${spec.engine} engine's container gives no command, which SkyPilot needs (it ignores the image's entrypoint)`,
    );
  }
  const c = spec.configuration;
  const useSpot = c.use_spot === true || c.spot === true;
  const accelerators = spec.placement.allowedGpuTypes;
  const gpuResources =
    container.gpus === 0
      ? {}
      : accelerators.length <= 1
        ? {
            accelerators: {
              [accelerators[0] ?? (typeof c.accelerator === "string" ? c.accelerator : "A100")]:
                container.gpus,
            },
          }
        : { any_of: accelerators.map((a) => ({ accelerators: { [a]: container.gpus } })) };
  const task = {
    name: clusterName,
    resources: {
      ...gpuResources,
      ...(typeof c.cpus === "string" || typeof c.cpus === "number" ? { cpus: c.cpus } : {}),
      use_spot: useSpot,
      // SkyPilot's own cost ceiling (newer servers): its optimizer skips anything dearer.
      ...(spec.placement.maxCostPerHour !== null ? { max_hourly_cost: spec.placement.maxCostPerHour } : {}),
      ports: [container.port],
      image_id: `docker:${container.image}`,
      labels: { "llmp-deployment": spec.deploymentId, "llmp-replica": spec.replicaId },
    },
    envs: container.env,
    run: [...container.command, ...container.args].map(shellQuote).join(" "),
  };
  return `${JSON.stringify(task, null, 2)}\n`;
}
