// The inference gateway as the platform starts it (server/http/gateway-description.ts).
import type { GatewayDescription } from "#server/http/gateway-description.ts";

export const inferenceGateway: GatewayDescription = {
  name: "inference",
  portVariable: "INFERENCE_PORT",
  title: "Inference gateway",
  description: "OpenAI-compatible chat completions, with keys, limits, guardrails and prompts applied.",
  extras: () => ({ errorStyle: "openai" }),
  // The inference runtime comes with the AppContext it was composed into (server/compose.ts).
  registries: (app) => (app.inference ? [app.inference.metrics.registry] : []),
};
