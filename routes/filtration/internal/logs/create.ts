import { t } from "elysia";
import { InferenceLogBatch } from "#contracts/internal/inference-log.ts";
import { route } from "#server/http/route.ts";
import { writeInferenceLogs } from "#services/inference-logs/logs.ts";

export const POST = route({
  access: "internal",
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Record inference log entries: one entry, or a batch as `{entries: [...]}`",
  bodyLimit: 16 * 1024 * 1024,
  body: InferenceLogBatch,
  status: 201,
  response: t.Object({ written: t.Integer() }),
  handler: ({ ctx, body }) => writeInferenceLogs(ctx, "entries" in body ? body.entries : [body]),
});
