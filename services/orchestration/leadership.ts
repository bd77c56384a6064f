// One reconciler per database drives the providers. Gateways may run as many copies as wanted
// (README), but two reconcilers would each think the other's local workers are theirs to restart
// or stop. On PostgreSQL the leader holds a session advisory lock on a connection of its own; when
// that process dies its connection closes, the lock is freed and another copy takes over at its next
// pass. Embedded PGlite belongs to one process anyway, which is then always the leader.
import type { Database } from "#db/client.ts";

/** pg advisory lock key: the first 8 bytes of sha256("llm-platform:reconciler"), as a signed bigint. */
const lockKey = new DataView(
  new Bun.CryptoHasher("sha256").update("llm-platform:reconciler").digest().buffer,
).getBigInt64(0);

interface Reserved {
  <T = unknown[]>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  release(): void;
}
interface PostgresClient {
  reserve(): Promise<Reserved>;
}

export interface Leadership {
  /** Whether this process leads now (taking the lead when it is free). */
  lead(): Promise<boolean>;
  release(): Promise<void>;
}

const isPostgres = (client: unknown): client is PostgresClient =>
  // postgres.js's client is a function (the sql tag) with methods.
  (typeof client === "function" || (typeof client === "object" && client !== null)) &&
  "reserve" in client &&
  typeof client.reserve === "function";

export function leadershipOf(db: Database): Leadership {
  const client: unknown = "$client" in db ? db.$client : undefined;
  if (!isPostgres(client)) return { lead: async () => true, release: async () => {} };
  let connection: Reserved | undefined;
  let leading = false;
  const drop = () => {
    connection?.release();
    connection = undefined;
    leading = false;
  };
  return {
    async lead() {
      try {
        connection ??= await client.reserve();
        if (leading) {
          // Still the same session, so still the lock's holder.
          await connection`select 1`;
          return true;
        }
        const [row] = await connection<
          { locked: boolean }[]
        >`select pg_try_advisory_lock(${lockKey.toString()}::bigint) as locked`;
        leading = row?.locked === true;
        if (!leading) drop();
        return leading;
      } catch {
        drop();
        return false;
      }
    },
    async release() {
      if (connection && leading) {
        await connection`select pg_advisory_unlock(${lockKey.toString()}::bigint)`.catch(() => {});
      }
      drop();
    },
  };
}
