// vLLM's OpenAI-compatible server in its official image (vllm/vllm-openai), as vLLM's Docker and
// `vllm serve` documentation give it (adapters/engines/README.md): the model, the name it answers
// to, tensor parallelism over the replica's GPUs, port 8000, GET /health. The command is spelled out
// (the image's entrypoint runs the same server) because SkyPilot ignores entrypoints.
import { engineContainer, flag } from "../container-config.ts";
import type { Engine } from "../engine.ts";

export const vllmPort = 8000;

export const vllmEngine: Engine = {
  id: "vllm",
  healthPath: "/health",
  container: (opts) =>
    engineContainer(opts, {
      image: "vllm/vllm-openai:latest",
      command: ["python3", "-m", "vllm.entrypoints.openai.api_server"],
      port: vllmPort,
      args: (config) => [
        "--model",
        opts.modelSource,
        "--served-model-name",
        opts.modelName,
        ...flag("--max-model-len", config.maxModelLen),
        ...flag("--quantization", config.quantization),
        // vLLM's tool-calling page: tool_choice "auto" needs both flags (400 otherwise); "required" and a named
        // function work without them, through guided decoding.
        ...(config.toolCallParser
          ? ["--enable-auto-tool-choice", "--tool-call-parser", config.toolCallParser]
          : []),
        "--tensor-parallel-size",
        String(Math.max(1, opts.gpus)),
      ],
      // vLLM's Docker page: PyTorch shares tensors between its processes through shared memory.
      shmMib: opts.gpus > 1 ? 16_384 : 2048,
    }),
};
