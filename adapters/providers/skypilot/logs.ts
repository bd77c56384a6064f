// The launch request's output (provisioning, setup, the engine's first lines) as the replica's log
// lines, read through GET /api/stream. The cursor counts lines already read; a cluster adopted
// after a restart has no launch request known here, so it shows none.
import type { LogChunk, ReplicaHandle } from "../provider.ts";
import { SkyPilotClient } from "./client.ts";
import type { SkyPilotReplicas } from "./replicas.ts";

export async function readSkyPilotLogs(
  { accounts, states }: SkyPilotReplicas,
  handle: ReplicaHandle,
  cursor: string | undefined,
): Promise<LogChunk> {
  const request = states.get(handle.providerInstanceId)?.launchRequest;
  if (!request) return { lines: [], cursor: cursor ?? "0" };
  const text = await new SkyPilotClient(await accounts.of(handle)).stream(request);
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const from = cursor === "end" ? lines.length : Number(cursor ?? 0) || 0;
  const now = new Date();
  return {
    lines: lines.slice(from).map((line) => ({ ts: now, stream: "stdout" as const, line })),
    cursor: String(lines.length),
  };
}
