// Load reports in Redis (REDIS_URL): each gateway process writes one key per deployment with a
// time to live (`llmp:load:<deployment>:<reporter>`) and adds itself to the deployment's set of
// reporters; the sum reads the set's keys and drops the reporters whose key expired.
import { add, type DeploymentLoad, idle, type LoadStore } from "#core/ports/load-store.ts";
import type { RedisCommands } from "./client.ts";

const reportersKey = (deploymentId: string) => `llmp:load:${deploymentId}`;
const reportKey = (deploymentId: string, reporterId: string) => `llmp:load:${deploymentId}:${reporterId}`;

/** What report() writes: in flight, queued, tokens per second. */
function isLoadReport(value: unknown): value is [number, number, number] {
  return Array.isArray(value) && value.length === 3 && value.every((n) => typeof n === "number");
}

export function redisLoadStore(redis: RedisCommands): LoadStore {
  return {
    kind: "redis",
    async report(reporterId, loads, ttlMs) {
      const ttl = String(Math.max(1, Math.ceil(ttlMs)));
      for (const [deploymentId, load] of loads) {
        const value = JSON.stringify([load.inFlight, load.queued, load.tokensPerSecond]);
        await redis.send("SET", [reportKey(deploymentId, reporterId), value, "PX", ttl]);
        await redis.send("SADD", [reportersKey(deploymentId), reporterId]);
        // The set outlives every report in it by a margin, and goes once nobody reports.
        await redis.send("PEXPIRE", [reportersKey(deploymentId), String(Number(ttl) * 10)]);
      }
    },
    async sum(deploymentIds) {
      const sums = new Map<string, DeploymentLoad>();
      for (const deploymentId of deploymentIds) {
        const members: unknown = await redis.send("SMEMBERS", [reportersKey(deploymentId)]);
        const reporters = Array.isArray(members)
          ? members.filter((r): r is string => typeof r === "string")
          : [];
        if (reporters.length === 0) continue;
        const answer: unknown = await redis.send(
          "MGET",
          reporters.map((r) => reportKey(deploymentId, r)),
        );
        const values = Array.isArray(answer) ? answer : [];
        let total: DeploymentLoad | undefined;
        const gone: string[] = [];
        for (const [i, value] of values.entries()) {
          const reporter = reporters[i];
          if (value === null && reporter !== undefined) {
            gone.push(reporter);
            continue;
          }
          const report: unknown = typeof value === "string" ? JSON.parse(value) : undefined;
          if (!isLoadReport(report)) continue;
          const [inFlight, queued, tokensPerSecond] = report;
          total = add(total ?? idle, { inFlight, queued, tokensPerSecond });
        }
        if (gone.length > 0) await redis.send("SREM", [reportersKey(deploymentId), ...gone]);
        if (total) sums.set(deploymentId, total);
      }
      return sums;
    },
  };
}
