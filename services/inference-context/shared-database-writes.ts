// The inference gateway running apart from the filtration side, but on the same PostgreSQL: its logs
// and usage go straight into that database (the same service functions the /internal endpoints call)
// instead of through filtration's HTTP, which cost filtration CPU per request and fell behind under
// load. Everything else (resolving keys, prompts, quota) still goes through the port it was given.
import type { Executor } from "#db/client.ts";
import type { AppContext } from "../context.ts";
import type { FiltrationPort } from "../inference/port.ts";
import { writeInferenceLogs } from "../inference-logs/logs.ts";
import { trackUsage } from "../usage/quota.ts";

export function writingToSharedDatabase(
  port: FiltrationPort,
  ctx: Pick<AppContext, "clock"> & { db: Executor },
): FiltrationPort {
  return {
    ...port,
    async writeLogs(entries) {
      await writeInferenceLogs(ctx, entries);
    },
    async trackUsage(records) {
      await trackUsage(ctx, records);
    },
  };
}
