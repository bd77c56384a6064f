// The wire adapters, keyed by the engine of a hosted (`external`) deployment: how the platform's
// OpenAI-shaped request reaches that upstream and how its answer comes back (wire.ts).
import { isWireId, type WireId } from "#core/domain.ts";
import { anthropicWire } from "./anthropic.ts";
import { geminiWire } from "./gemini.ts";
import { openAiCompatibleWire } from "./openai-compatible.ts";
import type { WireAdapter } from "./wire.ts";

export type { OpenAiPath, UpstreamTarget, WireAdapter, WireRequest } from "./wire.ts";

export const wires: { readonly [K in WireId]: WireAdapter } = {
  "openai-compatible": openAiCompatibleWire,
  anthropic: anthropicWire,
  gemini: geminiWire,
};

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
