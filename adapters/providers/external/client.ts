// The external provider's transport: does the upstream answer its wire adapter's probe?

import { hostedTargetOf } from "#adapters/upstream/wire/hosted.ts";
import { baseUrlOf, wireOf } from "#adapters/upstream/wire/index.ts";
import type { UpstreamTarget, WireAdapter } from "#adapters/upstream/wire/wire.ts";
import type { ReplicaSpec } from "../provider.ts";

/** `http://host:8000` and `http://host:8000/v1/` both become `http://host:8000/v1`; other paths stay. */
export function normalizeEndpoint(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, "");
  try {
    const url = new URL(trimmed);
    return url.pathname === "" || url.pathname === "/" ? `${trimmed}/v1` : trimmed;
  } catch {
    return trimmed;
  }
}

export interface ProbeTarget {
  wire: WireAdapter;
  target: UpstreamTarget;
}

/** The wire adapter and target of one replica; undefined when this build has no adapter for the engine. */
export function targetOf(spec: ReplicaSpec, endpoint: string): ProbeTarget | undefined {
  const wire = wireOf(spec.engine);
  if (!wire) return undefined;
  const hosted = hostedTargetOf(
    {
      name: spec.deploymentName,
      inferenceModel: spec.modelSource || null,
      configuration: spec.configuration,
    },
    spec.access,
  );
  return { wire, target: { ...hosted, endpoint: baseUrlOf(endpoint) } };
}

/**
 * Whether the adapter's probe answers with a success; for an OpenAI-compatible server without a
 * models list, `/health` beside it counts too (llama-server, vLLM).
 */
export async function answers({ wire, target }: ProbeTarget): Promise<boolean> {
  const probe = wire.probe(target);
  const urls = [probe.url, ...(wire.id === "openai-compatible" ? [`${target.endpoint}/health`] : [])];
  for (const url of urls) {
    try {
      const res = await fetch(url, { headers: probe.headers, signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {}
  }
  return false;
}
