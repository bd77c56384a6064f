// Loads the one model of this worker and its one context, turning every way a model file can be wrong into
// a FatalError whose message a person can act on.
import { stat } from "node:fs/promises";
import {
  type ChatWrapper,
  getLlama,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  LlamaLogLevel,
  type LlamaModel,
  readGgufFileInfo,
  resolveChatWrapper,
} from "node-llama-cpp";
import { type BatchStats, bySequenceId, Lockstep } from "./batching.ts";
import { DEFAULT_CONTEXT_SIZE, FatalError, type WorkerConfig } from "./config.ts";
import type { Log } from "./log.ts";

export interface LoadedModel {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequences: LlamaContextSequence[];
  /** Keeps the sequences' generations decoding in shared batches (batching.ts). */
  lockstep: Lockstep;
  /** What the context's batches held so far (batching.ts). */
  batchStats: BatchStats;
  chatWrapper: ChatWrapper;
  /** Tokens one sequence holds. */
  contextSize: number;
  /** Model weights and context state, rounded up to whole gigabytes (at least 1), for heartbeats. */
  ramGb: number;
  dispose(): Promise<void>;
}

const llamaLevels: Record<WorkerConfig["logLevel"], LlamaLogLevel> = {
  debug: LlamaLogLevel.debug,
  info: LlamaLogLevel.info,
  warn: LlamaLogLevel.warn,
  error: LlamaLogLevel.error,
  silent: LlamaLogLevel.error, // still captured for the fatal reason, not printed
};

export async function loadModel(config: WorkerConfig, log: Log): Promise<LoadedModel> {
  const path = config.modelPath;
  const file = await stat(path).catch(() => undefined);
  if (!file?.isFile()) throw new FatalError(`model file not found: ${path}`);
  // Reads only the header and metadata: a file that is not GGUF fails here with a clear message.
  await readGgufFileInfo(path).catch((error: unknown) => {
    throw new FatalError(`not a valid GGUF model: ${path}: ${withoutFileBytes(messageOf(error))}`);
  });

  // llama.cpp says why a load failed only in its log ("error loading model: tensor ... is not within the file
  // bounds"); the exception says just "Failed to load model". The first error line is the cause, the later
  // ones repeat that loading failed: keep it for the fatal reason.
  let firstLlamaError = "";
  const llama = await getLlama({
    gpu: false,
    build: "never",
    // FIELD-NOTES: left alone it picks more threads than the cores given, which is slower.
    maxThreads: config.threads,
    logLevel: llamaLevels[config.logLevel],
    logger: (level, message) => {
      const text = message.trim();
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) firstLlamaError ||= text;
      if (text)
        log.write(
          level === LlamaLogLevel.fatal ? "error" : level === LlamaLogLevel.log ? "info" : level,
          text,
          { source: "llama.cpp" },
        );
    },
  });
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: path });
  } catch (error) {
    await llama.dispose().catch(() => {});
    const why = firstLlamaError.replace(/^.*error loading model:\s*/, "") || messageOf(error);
    throw new FatalError(`not a valid GGUF model: ${path}: ${withoutFileBytes(why)}`);
  }
  try {
    const contextSize = Math.min(config.contextSize ?? DEFAULT_CONTEXT_SIZE, model.trainContextSize);
    let created: LlamaContext | undefined;
    const batchStats: BatchStats = { batches: 0, items: 0 };
    const context = await model.createContext({
      sequences: config.parallel,
      contextSize,
      threads: config.threads,
      // One decode for a batch of many sequences only when it is ordered by sequence id (batching.ts).
      batching: { itemPrioritizationStrategy: bySequenceId(() => created, batchStats) },
    });
    created = context;
    const sequences = Array.from({ length: config.parallel }, () => context.getSequence());
    const chatWrapper = resolveChatWrapper(model);
    log.info("model loaded", {
      model: path,
      chat_wrapper: chatWrapper.wrapperName,
      context_size: context.contextSize,
      sequences: config.parallel,
      threads: config.threads,
    });
    return {
      llama,
      model,
      context,
      sequences,
      lockstep: new Lockstep(),
      batchStats,
      chatWrapper,
      contextSize: context.contextSize,
      ramGb: Math.max(1, Math.ceil((model.size + context.stateSize) / 2 ** 30)),
      dispose: () => llama.dispose(),
    };
  } catch (error) {
    await llama.dispose().catch(() => {});
    throw new FatalError(`cannot create a context for ${path}: ${firstLlamaError || messageOf(error)}`);
  }
}

/**
 * The parser quotes what it found ('Expected "GGUF" but got "RvEt"'): bytes of the file, which must not
 * reach a failure reason (the file may be one the requester may not read). Quoted parts are dropped.
 */
function withoutFileBytes(message: string): string {
  if (/magic/i.test(message)) return "the file does not start with the GGUF magic number";
  return message.replace(/"[^"]*"|'[^']*'/g, "…");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
