// The response cache's answers in the database (db/schema/response-cache-entries.ts) when no REDIS_URL
// is set: every gateway process on one PostgreSQL shares them. A write inserts (or replaces) the answer,
// then deletes its scope's expired rows and those past max_entries, oldest first: writes happen on
// misses only, so the housekeeping rides on them.
import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { responseCacheEntries as entries } from "#db/schema/index.ts";
import type { CacheScope, EntryBounds, ResponseCacheStore, StoredAnswer } from "./store.ts";

export class DatabaseResponseCacheStore implements ResponseCacheStore {
  readonly kind = "database";

  constructor(
    private readonly db: Executor,
    private readonly now: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async get(scope: CacheScope, key: string): Promise<StoredAnswer | undefined> {
    try {
      const [row] = await this.db
        .select({ text: entries.answer, storedAtMs: entries.storedAtMs })
        .from(entries)
        .where(
          and(
            eq(entries.key, key),
            eq(entries.orgId, scope.orgId),
            gt(entries.expiresAt, new Date(this.now())),
          ),
        )
        .limit(1);
      return row;
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  async put(scope: CacheScope, key: string, answer: StoredAnswer, bounds: EntryBounds): Promise<void> {
    const row = {
      key,
      orgId: scope.orgId,
      deploymentId: scope.deploymentId,
      answer: answer.text,
      sizeBytes: Buffer.byteLength(answer.text),
      storedAtMs: answer.storedAtMs,
      expiresAt: new Date(answer.storedAtMs + bounds.ttlMs),
    };
    try {
      await this.db
        .insert(entries)
        .values(row)
        .onConflictDoUpdate({
          target: entries.key,
          set: {
            answer: row.answer,
            sizeBytes: row.sizeBytes,
            storedAtMs: row.storedAtMs,
            expiresAt: row.expiresAt,
          },
        });
      const inScope = and(eq(entries.orgId, scope.orgId), eq(entries.deploymentId, scope.deploymentId));
      await this.db.delete(entries).where(and(inScope, lte(entries.expiresAt, new Date(this.now()))));
      // The newest max_entries stay; the rest go.
      await this.db.execute(sql`delete from ${entries} where ${entries.key} in (
        select ${entries.key} from ${entries} where ${inScope}
        order by ${entries.storedAtMs} desc offset ${bounds.maxEntries})`);
    } catch (error) {
      this.onError(error);
    }
  }
}
