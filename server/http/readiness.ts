// GET /ready of a gateway: the database answers, and every check its process added (Redis, the first
// start being over), each within two seconds.

import { messageOf } from "#core/error-chain.ts";
import type { PlatformContext } from "#server/platform-context.ts";

export type ReadinessChecks = Record<string, () => Promise<void>>;

export async function readinessOf(
  app: PlatformContext,
  extra: ReadinessChecks | undefined,
): Promise<Record<string, string>> {
  const checks: ReadinessChecks = {
    database: async () => {
      await app.db.execute("select 1");
    },
    ...extra,
  };
  const entries = await Promise.all(
    Object.entries(checks).map(async ([key, check]) => {
      try {
        await withTimeout(check(), 2000);
        return [key, "ok"] as const;
      } catch (error) {
        return [key, messageOf(error) || "unreachable"] as const;
      }
    }),
  );
  return Object.fromEntries(entries);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
