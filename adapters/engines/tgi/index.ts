// Hugging Face Text Generation Inference in its official image, as TGI's launcher reference gives
// it (adapters/engines/README.md): `text-generation-launcher` with the model id, the token limits
// (max_model_len as --max-total-tokens, one less as --max-input-length), --quantize, one shard per
// GPU, port 80 as in the image's documented `-p 8080:80`. TGI serves the OpenAI Messages API at
// /v1/chat/completions; the served name is the model id, which the gateway does not rely on (it
// routes by deployment). GET /health.
import { engineContainer, flag } from "../container-config.ts";
import type { Engine } from "../engine.ts";

export const tgiPort = 80;

export const tgiEngine: Engine = {
  id: "tgi",
  healthPath: "/health",
  container: (opts) =>
    engineContainer(opts, {
      image: "ghcr.io/huggingface/text-generation-inference:latest",
      command: ["text-generation-launcher"],
      port: tgiPort,
      hostFlag: "--hostname",
      args: (config) => [
        "--model-id",
        opts.modelSource,
        ...flag("--max-total-tokens", config.maxModelLen),
        ...flag("--max-input-length", config.maxModelLen && Math.max(1, config.maxModelLen - 1)),
        ...flag("--quantize", config.quantization),
        ...(opts.gpus > 1 ? ["--num-shard", String(opts.gpus)] : []),
      ],
      // TGI's README runs the image with --shm-size 1g (NCCL between shards).
      shmMib: 1024,
    }),
};
