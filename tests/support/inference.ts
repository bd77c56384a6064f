// An inference runtime for a test platform as server/compose.ts would build it beside the filtration
// side: plain calls into the filtration services, no Redis, the error table's statuses. The test
// composes it into its context with withInference (server/compose.ts).
import { errorTable } from "#server/error-table.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import {
  createInferenceRuntime,
  type InferenceRuntime,
  type RuntimeOptions,
} from "#services/inference/runtime.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";

export function inProcessInference(
  app: PlatformContext,
  options: Partial<RuntimeOptions> = {},
): InferenceRuntime {
  return createInferenceRuntime({
    port: inProcessFiltration(app),
    redis: undefined,
    log: app.log,
    statusOf: (error) => errorTable[error.code].status,
    // The reports meet the autoscaler of this platform, as the composition root arranges.
    load: app.orchestration.load,
    ...options,
  });
}
