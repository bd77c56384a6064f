// Each container engine's spec against its documented arguments (adapters/engines/README.md), and
// which providers accept the container engines: the container providers do, `local` refuses them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ContainerOptions, ContainerSpec } from "#adapters/engines/engine.ts";
import { engines } from "#adapters/engines/index.ts";
import { createProviders } from "#adapters/providers/index.ts";
import { createPool, type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { call, type ErrorBody } from "../support/app.ts";

const base: ContainerOptions = {
  modelSource: "Qwen/Qwen2.5-0.5B-Instruct",
  modelName: "my-model",
  gpus: 2,
  configuration: { max_model_len: 4096, quantization: "awq", hf_token: "hf_x" },
  env: { NODE_TOKEN: "t" },
};
const spec = (id: "vllm" | "sglang" | "tgi" | "llama.cpp", opts: Partial<ContainerOptions> = {}) => {
  const engine = engines[id];
  if (!engine?.container) throw new Error(`${id} has no container form`);
  return engine.container({ ...base, ...opts });
};
/** The value following `name` in the argument list. */
const arg = (s: ContainerSpec, name: string) => {
  const i = s.args.indexOf(name);
  return i < 0 ? undefined : s.args[i + 1];
};

describe("container specs", () => {
  test("vllm: vllm/vllm-openai, --model, --served-model-name, --max-model-len, --quantization, tensor parallel = GPUs, port 8000, /health", () => {
    const s = spec("vllm");
    expect(s.image).toStartWith("vllm/vllm-openai:");
    expect(s.command).toEqual(["python3", "-m", "vllm.entrypoints.openai.api_server"]);
    expect(arg(s, "--model")).toBe("Qwen/Qwen2.5-0.5B-Instruct");
    expect(arg(s, "--served-model-name")).toBe("my-model");
    expect(arg(s, "--max-model-len")).toBe("4096");
    expect(arg(s, "--quantization")).toBe("awq");
    expect(arg(s, "--tensor-parallel-size")).toBe("2");
    expect(arg(s, "--port")).toBe("8000");
    expect(s.port).toBe(8000);
    expect(s.healthPath).toBe("/health");
    expect(s.gpus).toBe(2);
    expect(s.env).toEqual({ HF_TOKEN: "hf_x", NODE_TOKEN: "t" });
    expect(s.shmMib).toBeGreaterThan(0);
    const plain = spec("vllm", { gpus: 1, configuration: {} });
    expect(plain.args).not.toContain("--max-model-len");
    expect(plain.args).not.toContain("--quantization");
    expect(arg(plain, "--tensor-parallel-size")).toBe("1");
    // tool_choice "auto" needs a tool-call parser, which only the deployment knows (it is model-specific).
    expect(plain.args).not.toContain("--enable-auto-tool-choice");
    const tools = spec("vllm", { configuration: { tool_call_parser: "hermes" } });
    expect(tools.args).toContain("--enable-auto-tool-choice");
    expect(arg(tools, "--tool-call-parser")).toBe("hermes");
  });

  test("sglang: lmsysorg/sglang, python3 -m sglang.launch_server --model-path --served-model-name --tp --host 0.0.0.0 --port, /health", () => {
    const s = spec("sglang");
    expect(s.image).toStartWith("lmsysorg/sglang:");
    expect(s.command).toEqual(["python3", "-m", "sglang.launch_server"]);
    expect(arg(s, "--model-path")).toBe("Qwen/Qwen2.5-0.5B-Instruct");
    expect(arg(s, "--served-model-name")).toBe("my-model");
    expect(arg(s, "--tp")).toBe("2");
    expect(arg(s, "--host")).toBe("0.0.0.0");
    expect(arg(s, "--port")).toBe(String(s.port));
    expect(arg(s, "--context-length")).toBe("4096");
    expect(arg(s, "--quantization")).toBe("awq");
    expect(s.healthPath).toBe("/health");
    expect(s.args).not.toContain("--tool-call-parser");
    expect(arg(spec("sglang", { configuration: { tool_call_parser: "qwen25" } }), "--tool-call-parser")).toBe(
      "qwen25",
    );
  });

  test("tgi: text-generation-inference, --model-id, --max-total-tokens/--max-input-length, --quantize, --num-shard, port 80, /health", () => {
    const s = spec("tgi");
    expect(s.image).toStartWith("ghcr.io/huggingface/text-generation-inference:");
    expect(s.command).toEqual(["text-generation-launcher"]);
    expect(arg(s, "--model-id")).toBe("Qwen/Qwen2.5-0.5B-Instruct");
    expect(arg(s, "--max-total-tokens")).toBe("4096");
    expect(arg(s, "--max-input-length")).toBe("4095");
    expect(arg(s, "--quantize")).toBe("awq");
    expect(arg(s, "--num-shard")).toBe("2");
    expect(arg(s, "--port")).toBe("80");
    expect(s.port).toBe(80);
    expect(s.healthPath).toBe("/health");
    expect(spec("tgi", { gpus: 1 }).args).not.toContain("--num-shard");
  });

  test("llama.cpp: ggml-org's llama-server image (CUDA with GPUs), the model by URL, Hugging Face repo or path, --alias, port 8080", () => {
    const gpu = spec("llama.cpp", { modelSource: "https://example.com/m.gguf" });
    expect(gpu.image).toBe("ghcr.io/ggml-org/llama.cpp:server-cuda");
    expect(gpu.command).toEqual(["/app/llama-server"]);
    expect(arg(gpu, "--model-url")).toBe("https://example.com/m.gguf");
    expect(arg(gpu, "--alias")).toBe("my-model");
    expect(arg(gpu, "--ctx-size")).toBe("4096");
    expect(arg(gpu, "--n-gpu-layers")).toBe("999");
    expect(arg(gpu, "--port")).toBe("8080");
    expect(gpu.healthPath).toBe("/health");
    // Tool calling in llama-server needs the model's Jinja template.
    expect(gpu.args).toContain("--jinja");
    const cpu = spec("llama.cpp", { gpus: 0, modelSource: "bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M" });
    expect(cpu.image).toBe("ghcr.io/ggml-org/llama.cpp:server");
    expect(arg(cpu, "-hf")).toBe("bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M");
    expect(cpu.args).not.toContain("--n-gpu-layers");
    expect(arg(spec("llama.cpp", { modelSource: "/models/m.gguf" }), "-m")).toBe("/models/m.gguf");
  });

  test("the container providers run vllm, sglang and tgi; local runs none of them", () => {
    const providers = createProviders({ dataDir: "/tmp/unused" });
    for (const id of ["nosana", "akash", "skypilot"] as const) {
      for (const engine of ["vllm", "sglang", "tgi"] as const) {
        expect(providers[id]?.capabilities.engines).toContain(engine);
        expect(engines[engine]?.container).toBeFunction();
      }
    }
    expect(providers.local?.capabilities.engines).toEqual(["llama.cpp"]);
  });
});

describe("deploying a container engine", () => {
  let o: OrchestrationTest;
  beforeAll(async () => {
    o = await startOrchestrationTest();
  }, 60_000);
  afterAll(async () => {
    await o.t.close();
  }, 30_000);

  test("on local: 400 naming the engine and what local runs", async () => {
    const pool = await createPool(o);
    for (const engine of ["vllm", "sglang", "tgi"]) {
      const res = await call<ErrorBody>(o.orchestration, "POST", "/deployment/deploy", {
        token: o.token,
        body: {
          engine,
          pool_id: pool.pool_id,
          image: engine,
          model_name: `m-${engine}`,
          inference_model: "Qwen/Qwen2.5-0.5B-Instruct",
        },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain("engine");
      expect(JSON.stringify(res.body)).toContain(`runs llama.cpp, not ${engine}`);
    }
  }, 30_000);
});
