// The SDL (Akash's deployment manifest language, version 2.0) of one replica: the engine's image,
// command, environment and port exposed globally on 80, a compute profile with the GPU models the
// pool allows, and a placement whose price cap follows max_cost_per_hour when it can be converted.
import type { ContainerSpec } from "../../engines/engine.ts";

export const serviceName = "engine";

/** YAML for the subset SDL needs: every scalar is JSON-quoted, which YAML reads as a string. */
function yaml(value: unknown, indent = 0): string {
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    return value
      .map((item) =>
        item !== null && typeof item === "object"
          ? `${pad}-\n${yaml(item, indent + 2)}`
          : `${pad}- ${JSON.stringify(item)}`,
      )
      .join("\n");
  }
  return Object.entries(value ?? {})
    .map(([key, v]) =>
      v !== null && typeof v === "object"
        ? `${pad}${key}:\n${yaml(v, indent + 2)}`
        : `${pad}${key}: ${typeof v === "number" ? v : JSON.stringify(v)}`,
    )
    .join("\n");
}

export interface SdlOptions {
  container: ContainerSpec;
  /** GPU models the pool allows (lower case, as Akash providers advertise them); empty: any. */
  gpuModels: string[];
  cpuUnits: number;
  memoryMib: number;
  storageGib: number;
}

export function sdlOf(o: SdlOptions): string {
  const c = o.container;
  const gpu =
    c.gpus > 0
      ? {
          units: c.gpus,
          attributes: {
            vendor: { nvidia: o.gpuModels.length > 0 ? o.gpuModels.map((model) => ({ model })) : [] },
          },
        }
      : { units: 0 };
  const service = {
    image: c.image,
    ...(c.command ? { command: c.command } : {}),
    args: c.args,
    env: Object.entries(c.env).map(([k, v]) => `${k}=${v}`),
    expose: [{ port: c.port, as: 80, to: [{ global: true }] }],
  };
  return `${yaml({
    version: "2.0",
    services: { [serviceName]: service },
    profiles: {
      compute: {
        [serviceName]: {
          resources: {
            cpu: { units: o.cpuUnits },
            memory: { size: `${o.memoryMib}Mi` },
            storage: [{ size: `${o.storageGib}Gi` }],
            gpu,
          },
        },
      },
      placement: { akash: { pricing: { [serviceName]: { denom: "uakt", amount: 1_000_000 } } } },
    },
    deployment: { [serviceName]: { akash: { profile: serviceName, count: 1 } } },
  })}\n`;
}
