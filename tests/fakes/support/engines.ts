// The engines the provider tests hand their adapters. Until the container-engines branch gives
// llama.cpp its container form (adapters/engines/llama.cpp), this adds the smallest one, after
// llama.cpp's documented server image, so the adapters have a container to describe; the fakes
// never run it (they point the replica at a real llama.cpp worker instead).
import type { Engine } from "../../../adapters/engines/engine.ts";
import { engines } from "../../../adapters/engines/index.ts";

const llamaCpp = engines["llama.cpp"] as Engine;

export const testEngines: typeof engines = {
  ...engines,
  "llama.cpp": llamaCpp.container
    ? llamaCpp
    : {
        ...llamaCpp,
        container: (opts) => ({
          image: "ghcr.io/ggml-org/llama.cpp:server",
          command: ["/app/llama-server"],
          args: ["-m", opts.modelSource, "--alias", opts.modelName, "--host", "0.0.0.0", "--port", "8080"],
          env: { ...opts.env },
          port: 8080,
          healthPath: "/health",
          gpus: opts.gpus,
        }),
      },
};
