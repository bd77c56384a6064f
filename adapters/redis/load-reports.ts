// Load reports in Redis (REDIS_URL): each gateway process writes one key per deployment with a
// time to live (`llmp:load:<deployment>:<reporter>`) and adds itself to the deployment's set of
// reporters; the sum reads the set's keys and drops the reporters whose key expired.
import { add, type DeploymentLoad, idle, type LoadStore } from "#core/ports/load-store.ts";
import type { RedisCommands } from "./client.ts";

const reportersKey = (deploymentId: string) => `llmp:load:${deploymentId}`;
const reportKey = (deploymentId: string, reporterId: string) => `llmp:load:${deploymentId}:${reporterId}`;

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
        const reporters = (await redis.send("SMEMBERS", [reportersKey(deploymentId)])) as string[] | null;
        if (!reporters || reporters.length === 0) continue;
        const values = (await redis.send(
          "MGET",
          reporters.map((r) => reportKey(deploymentId, r)),
        )) as (string | null)[];
        let total: DeploymentLoad | undefined;
        const gone: string[] = [];
        for (const [i, value] of values.entries()) {
          if (value === null) {
            gone.push(reporters[i] as string);
            continue;
          }
          const [inFlight, queued, tokensPerSecond] = JSON.parse(value) as [number, number, number];
          total = add(total ?? idle, { inFlight, queued, tokensPerSecond });
        }
        if (gone.length > 0) await redis.send("SREM", [reportersKey(deploymentId), ...gone]);
        if (total) sums.set(deploymentId, total);
      }
      return sums;
    },
  };
}
