// SGLang's server in its official image (lmsysorg/sglang), as SGLang's install and server-argument
// pages give it (adapters/engines/README.md): `python3 -m sglang.launch_server` with the model path,
// the served name, tensor parallelism over the replica's GPUs, listening on all interfaces of port
// 30000; GET /health.
import { engineContainer, flag } from "../container-config.ts";
import type { Engine } from "../engine.ts";

export const sglangPort = 30000;

export const sglangEngine: Engine = {
  id: "sglang",
  healthPath: "/health",
  container: (opts) =>
    engineContainer(opts, {
      image: "lmsysorg/sglang:latest",
      command: ["python3", "-m", "sglang.launch_server"],
      port: sglangPort,
      args: (config) => [
        "--model-path",
        opts.modelSource,
        "--served-model-name",
        opts.modelName,
        ...flag("--context-length", config.maxModelLen),
        ...flag("--quantization", config.quantization),
        // SGLang's tool-parser page: the parser reads the model's calls out of its text into tool_calls.
        ...flag("--tool-call-parser", config.toolCallParser),
        "--tp",
        String(Math.max(1, opts.gpus)),
      ],
      // SGLang's compose file runs with the host's IPC; a pod gets a memory-backed /dev/shm instead.
      shmMib: 16_384,
    }),
};
