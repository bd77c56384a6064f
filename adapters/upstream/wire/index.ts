// The wire adapters, keyed by the engine of a hosted (`external`) deployment: how the platform's
// OpenAI-shaped request reaches that upstream and how its answer comes back (wire.ts).
import { openAiCompatibleWire } from "./openai-compatible.ts";
import type { WireAdapter } from "./wire.ts";

export type { OpenAiPath, UpstreamTarget, WireAdapter, WireRequest } from "./wire.ts";

/** The engines of hosted upstreams, one per wire format. */
export const wireIds = ["openai-compatible", "anthropic", "gemini"] as const;
export type WireId = (typeof wireIds)[number];

/** Only the adapters this build has: an engine without one is refused at deploy (400 `engine`). */
export const wires: { readonly [K in WireId]?: WireAdapter } = {
  "openai-compatible": openAiCompatibleWire,
  // MERGE (branch wire-formats): anthropic: anthropicWire, from "./anthropic.ts"
  // MERGE (branch wire-formats): gemini: geminiWire, from "./gemini.ts"
};

export const isWireId = (engine: string): engine is WireId => (wireIds as readonly string[]).includes(engine);

/** The adapter of a deployment's engine; undefined for engines the platform runs itself. */
export function wireOf(engine: string): WireAdapter | undefined {
  return isWireId(engine) ? wires[engine] : undefined;
}

/**
 * The upstream's base URL from a replica's endpoint: external endpoints are stored as OpenAI base URLs
 * (…/v1, adapters/providers/external/client.ts), while a wire adapter appends the whole path itself.
 */
export function baseUrlOf(endpoint: string): string {
  return endpoint.replace(/\/+$/, "").replace(/\/v1$/, "");
}
