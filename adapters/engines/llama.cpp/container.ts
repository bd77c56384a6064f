// llama.cpp's own server (llama-server) in ggml-org's image, for container providers: the CPU image
// `:server`, or `:server-cuda` with every layer offloaded when the replica has GPUs. The model is
// downloaded by the server itself (--model-url for an http(s) URL, -hf for a Hugging Face
// `owner/repo[:quant]`) or read from a path inside the container (-m). It answers to the deployment
// name (--alias) on port 8080 and says GET /health once the model is loaded (adapters/engines/README.md).
import { engineContainer, flag } from "../container-config.ts";
import type { ContainerOptions, ContainerSpec } from "../engine.ts";

export const llamaServerPort = 8080;

function modelArgs(source: string): string[] {
  if (/^https?:\/\//.test(source)) return ["--model-url", source];
  if (/^[\w.-]+\/[\w.-]+(:[\w.-]+)?$/.test(source)) return ["-hf", source];
  return ["-m", source];
}

export function llamaCppContainer(opts: ContainerOptions): ContainerSpec {
  const parallel = opts.configuration.parallel;
  return engineContainer(opts, {
    image: opts.gpus > 0 ? "ghcr.io/ggml-org/llama.cpp:server-cuda" : "ghcr.io/ggml-org/llama.cpp:server",
    command: ["/app/llama-server"],
    port: llamaServerPort,
    args: (config) => [
      ...modelArgs(opts.modelSource),
      "--alias",
      opts.modelName,
      ...flag("--ctx-size", config.maxModelLen),
      ...flag("--parallel", typeof parallel === "number" && parallel > 0 ? parallel : undefined),
      ...(opts.gpus > 0 ? ["--n-gpu-layers", "999"] : []),
      // The model's own Jinja chat template: llama-server's tool calling (tools, tool_choice, tool messages)
      // works only with it.
      "--jinja",
    ],
  });
}
