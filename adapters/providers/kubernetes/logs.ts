// The engine container's output (GET .../pods/{pod}/log with timestamps) as the replica's log
// lines. The cursor is the timestamp of the last line read: the next read asks `sinceTime` from
// it and drops lines not after it (sinceTime has second precision).
import type { LogChunk, LogLine, ReplicaHandle } from "../provider.ts";
import type { InstanceAccounts } from "../remote-accounts.ts";
import { accessOf, kubeApi } from "./client.ts";
import { labelKeys } from "./manifests.ts";

export async function readKubernetesLogs(
  accounts: InstanceAccounts,
  handle: ReplicaHandle,
  cursor: string | undefined,
): Promise<LogChunk> {
  const api = await kubeApi(await accessOf(accounts, handle));
  const pods = (
    await api.core.listNamespacedPod({
      namespace: api.namespace,
      labelSelector: `${labelKeys.replica}=${handle.replicaId}`,
    })
  ).items;
  const pod = pods.find((p) => p.status?.phase === "Running") ?? pods[0];
  const podName = pod?.metadata?.name;
  if (!podName || pod.status?.phase === "Pending") return { lines: [], cursor: cursor ?? "" };
  const since = cursor ? new Date(cursor) : undefined;
  const text = await api.core.readNamespacedPodLog({
    name: podName,
    namespace: api.namespace,
    container: "engine",
    timestamps: true,
    ...(since ? { sinceTime: new Date(Math.floor(since.getTime() / 1000) * 1000) } : { tailLines: 1000 }),
  });
  const lines: LogLine[] = [];
  let last = cursor ?? "";
  for (const raw of String(text).split("\n")) {
    if (!raw.trim()) continue;
    const space = raw.indexOf(" ");
    const stamp = space > 0 ? raw.slice(0, space) : "";
    const ts = new Date(stamp);
    if (Number.isNaN(ts.getTime())) continue;
    if (since && ts.getTime() <= since.getTime()) continue;
    lines.push({ ts, stream: "stdout", line: raw.slice(space + 1) });
    last = stamp;
  }
  return { lines, cursor: last };
}
