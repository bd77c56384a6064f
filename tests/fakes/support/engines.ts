// The engines the provider tests hand their adapters: the installation's own, whose container forms
// the adapters describe; the fakes never run those images (they point the replica at a real
// llama.cpp worker instead).
import { engines } from "#adapters/engines/index.ts";

export const testEngines: typeof engines = engines;
