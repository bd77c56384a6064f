// The Nosana job definition of one replica: one `container/run` op running the engine's container,
// exposing its port (Nosana gives the exposed port a public URL, the replica's endpoint).
import type { ContainerSpec } from "../../engines/engine.ts";
import type { JobDefinition } from "./client.ts";

export function jobDefinitionOf(container: ContainerSpec): JobDefinition {
  return {
    version: "0.1",
    type: "container",
    meta: { trigger: "api" },
    ops: [
      {
        type: "container/run",
        id: "engine",
        args: {
          image: container.image,
          ...(container.command ? { entrypoint: container.command } : {}),
          cmd: container.args,
          gpu: container.gpus > 0,
          expose: container.port,
          env: container.env,
        },
      },
    ],
  };
}
