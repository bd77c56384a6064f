// `last_used_at` of API keys without a database write per request: each use is noted in memory and
// all the keys used since the last flush are written in one UPDATE every few seconds (and on
// shutdown). The column is therefore a few seconds late, which is all a "last used" needs.
import { sql } from "drizzle-orm";
import type { Logger } from "#core/logger.ts";
import type { Executor } from "#db/client.ts";
import type { LastUsedRecorder } from "../context.ts";

export const lastUsedFlushMs = 5_000;

export class LastUsedTracker implements LastUsedRecorder {
  private pending = new Map<string, Date>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<number> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly log: Logger,
    private readonly intervalMs = lastUsedFlushMs,
  ) {}

  /** Notes a use; the write follows within intervalMs. */
  touch(keyId: string, at: Date): void {
    const seen = this.pending.get(keyId);
    if (!seen || seen < at) this.pending.set(keyId, at);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch((error) => this.log.warn("last_used_at not written", { error }));
      }, this.intervalMs);
      // A pending write never keeps the process alive; shutdown calls flush() itself.
      this.timer.unref?.();
    }
  }

  /** Uses noted and not yet written. */
  get size(): number {
    return this.pending.size;
  }

  /** Writes every noted use in one statement; returns how many keys it covered. */
  async flush(): Promise<number> {
    if (this.flushing) await this.flushing;
    if (this.pending.size === 0) return 0;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write(batch).catch((error) => {
      // Keep the uses for the next attempt, unless newer ones replaced them meanwhile.
      for (const [id, at] of batch) {
        const newer = this.pending.get(id);
        if (!newer || newer < at) this.pending.set(id, at);
      }
      throw error;
    });
    try {
      return await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private async write(batch: Map<string, Date>): Promise<number> {
    const rows = [...batch].map(([id, at]) => sql`(${id}::uuid, ${at.toISOString()}::timestamptz)`);
    // greatest(): a late flush from another process never moves the time backwards.
    await this.db.execute(sql`
      update api_keys set last_used_at = greatest(api_keys.last_used_at, v.at)
      from (values ${sql.join(rows, sql`, `)}) as v(id, at)
      where api_keys.id = v.id`);
    return batch.size;
  }
}
