// The deployment `configuration` keys every container engine understands, read once with their
// types checked, so each engine maps the same keys onto its own flags; and the container spec
// around each engine's own image, command and flags.
import type { DeploymentConfiguration } from "#core/options.ts";
import type { ContainerOptions, ContainerSpec } from "./engine.ts";

export interface ContainerConfig {
  /** Tokens per sequence (prompt + output): `max_model_len` (alias `context_size`). */
  maxModelLen: number | undefined;
  /** The engine's quantization method name (awq, gptq, fp8, bitsandbytes, ...). */
  quantization: string | undefined;
  /** Hugging Face token for gated models, passed as HF_TOKEN. */
  hfToken: string | undefined;
  /**
   * How the server reads the model's tool calls out of its text (`tool_call_parser`: hermes, llama3_json,
   * mistral, qwen25, ...; model-specific). vLLM and SGLang answer tool_choice "auto" only with one.
   */
  toolCallParser: string | undefined;
}

const positiveInt = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);
const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

export function containerConfig(configuration: DeploymentConfiguration): ContainerConfig {
  return {
    maxModelLen: positiveInt(configuration.max_model_len) ?? positiveInt(configuration.context_size),
    quantization: text(configuration.quantization),
    hfToken: text(configuration.hf_token),
    toolCallParser: text(configuration.tool_call_parser),
  };
}

/** Flags present only when their value is. */
export const flag = (name: string, value: string | number | undefined): string[] =>
  value === undefined ? [] : [name, String(value)];

/** The engine's variables: the Hugging Face token when given, then the provider's (set last). */
export const containerEnv = (config: ContainerConfig, env: Record<string, string> | undefined) => ({
  ...(config.hfToken ? { HF_TOKEN: config.hfToken } : {}),
  ...env,
});

/**
 * One replica's container of an engine image: its image, command and flags (from the configuration
 * read once), listening on all interfaces of `port` (`hostFlag`, default `--host`), GET /health,
 * HF_TOKEN and the provider's variables, the replica's GPUs.
 */
export function engineContainer(
  opts: ContainerOptions,
  engine: {
    image: string;
    command: string[];
    port: number;
    hostFlag?: string;
    args: (config: ContainerConfig) => string[];
    shmMib?: number;
  },
): ContainerSpec {
  const config = containerConfig(opts.configuration);
  return {
    image: engine.image,
    command: engine.command,
    args: [...engine.args(config), engine.hostFlag ?? "--host", "0.0.0.0", "--port", String(engine.port)],
    env: containerEnv(config, opts.env),
    port: engine.port,
    healthPath: "/health",
    gpus: opts.gpus,
    ...(engine.shmMib === undefined ? {} : { shmMib: engine.shmMib }),
  };
}
