// Nosana's deployment events (job queued, running, stopped, errors) as the replica's log lines.
// The cursor is how many events were already read; "end" (a replica adopted after a restart)
// skips what was there before.
import type { LogChunk, ReplicaHandle } from "../provider.ts";
import { NosanaClient, NosanaError, type NosanaEvent } from "./client.ts";
import { type NosanaReplicas, nosanaIdOf } from "./replicas.ts";

export async function readNosanaLogs(
  { accounts, states: ids }: NosanaReplicas,
  handle: ReplicaHandle,
  cursor: string | undefined,
): Promise<LogChunk> {
  const client = new NosanaClient(await accounts.of(handle));
  const id = await nosanaIdOf(client, ids, handle.providerInstanceId);
  if (!id) return { lines: [], cursor: cursor ?? "0" };
  let events: NosanaEvent[];
  try {
    events = await client.events(id);
  } catch (error) {
    // Deleted at Nosana: nothing more to read.
    if (error instanceof NosanaError && error.status === 404) return { lines: [], cursor: cursor ?? "0" };
    throw error;
  }
  const from = cursor === "end" ? events.length : Number(cursor ?? 0) || 0;
  return {
    lines: events.slice(from).map((e) => ({
      ts: new Date(e.created_at),
      stream: /error|fail/i.test(e.type) ? ("stderr" as const) : ("stdout" as const),
      line: `[nosana ${e.type}] ${e.message}`,
    })),
    cursor: String(events.length),
  };
}
