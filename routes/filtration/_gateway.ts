// The filtration gateway as the platform starts it (server/http/gateway-description.ts).
import type { GatewayDescription } from "#server/http/gateway-description.ts";
import { scimProblem } from "#server/http/scim-problems.ts";

export const filtrationGateway: GatewayDescription = {
  name: "filtration",
  portVariable: "FILTRATION_PORT",
  title: "Filtration gateway",
  description: "Authentication, roles, API keys, policies, guardrails, knowledge base, prompts and audit.",
  // SCIM clients read RFC 7644's error body, not the platform's envelope.
  extras: () => ({ renderProblem: scimProblem }),
};
