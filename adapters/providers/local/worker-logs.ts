// A worker's output since a cursor `<pid>:<stdout offset>:<stderr offset>`: a new process (or a
// first read) is read from the start of its files, or from their end when the cursor is "end".
import type { LogChunk, ReplicaHandle } from "../provider.ts";
import { readLines, sizeOf } from "./output-files.ts";
import { logPaths, pidOf } from "./processes.ts";

export function readWorkerLogs(
  workersDir: string,
  handle: ReplicaHandle,
  cursor: string | undefined,
): LogChunk {
  const pid = pidOf(handle.providerInstanceId);
  if (pid === undefined) return { lines: [], cursor: cursor ?? "" };
  const paths = logPaths(workersDir, handle.replicaId, pid);
  let [from, out, err] = (cursor ?? "").split(":");
  if (from !== String(pid)) {
    const fromEnd = cursor === "end";
    out = String(fromEnd ? sizeOf(paths.stdoutPath) : 0);
    err = String(fromEnd ? sizeOf(paths.stderrPath) : 0);
  }
  const o = readLines(paths.stdoutPath, Number(out));
  const e = readLines(paths.stderrPath, Number(err));
  const now = new Date();
  return {
    lines: [
      ...o.lines.map((line) => ({ ts: now, stream: "stdout" as const, line })),
      ...e.lines.map((line) => ({ ts: now, stream: "stderr" as const, line })),
    ],
    cursor: `${pid}:${o.offset}:${e.offset}`,
  };
}
