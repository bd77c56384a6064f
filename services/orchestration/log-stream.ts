// The live log stream of a deployment (CONTRACTS): GET …/stream says where the WebSocket is; the
// WebSocket sends the last lines, then each new line as it comes, one JSON object a message.
import type { RequestContext } from "../context.ts";
import { type LogEntry, lastLines, visibleDeploymentId } from "./logs.ts";
import type { WithOrchestration } from "./runtime.ts";

export { visibleDeploymentId };

const backlogLines = 100;

export async function logStreamInfo(
  ctx: RequestContext,
  deploymentId: string,
  requestUrl: string,
  headers: Headers,
): Promise<{ url: string; format: "json" }> {
  const id = await visibleDeploymentId(ctx, deploymentId);
  // Behind a proxy the address the client used is in the forwarded headers.
  const url = new URL(requestUrl);
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? url.host;
  const secure = (headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "")) === "https";
  return { url: `${secure ? "wss" : "ws"}://${host}/deployment/logs/${id}/ws`, format: "json" };
}

/** Sends the backlog, then every new line; returns the unsubscribe. */
export async function openLogStream(
  ctx: RequestContext & WithOrchestration,
  deploymentId: string,
  send: (entry: LogEntry) => void,
): Promise<() => void> {
  const early: LogEntry[] = [];
  let live = false;
  const unsubscribe = ctx.orchestration.logs.subscribe(deploymentId, (entry) =>
    live ? send(entry) : early.push(entry),
  );
  const backlog = await lastLines(ctx, deploymentId, { limit: backlogLines });
  for (const entry of backlog) send(entry);
  // Lines that arrived while the backlog was read, unless the backlog already had them.
  const seen = new Set(backlog.map((e) => `${e.ts}|${e.replica}|${e.stream}|${e.line}`));
  for (const entry of early)
    if (!seen.has(`${entry.ts}|${entry.replica}|${entry.stream}|${entry.line}`)) send(entry);
  live = true;
  return unsubscribe;
}
