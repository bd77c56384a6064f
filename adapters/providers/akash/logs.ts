// What the adapter saw of a replica at Akash (deployment created, bids, lease, failures) as its log
// lines. The container's own output stays at the provider: the Console API does not relay it.
import type { LogChunk, ReplicaHandle } from "../provider.ts";
import type { AkashReplicas } from "./replicas.ts";

export function readAkashLogs(
  { states }: AkashReplicas,
  handle: ReplicaHandle,
  cursor: string | undefined,
): LogChunk {
  const notes = states.get(handle.providerInstanceId)?.notes ?? [];
  const from = cursor === "end" ? notes.length : Number(cursor ?? 0) || 0;
  return {
    lines: notes.slice(from).map((n) => ({ ts: n.ts, stream: "stdout" as const, line: n.line })),
    cursor: String(notes.length),
  };
}
