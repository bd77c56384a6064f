// A stored response to and from the wire between the gateways (/internal/responses/*, whose contract is
// contracts/internal/responses.ts): the filtration routes and the inference gateway's HTTP port
// (server/filtration-http-port.ts) map it with these two functions.
import type { StoredResponseWire } from "#contracts/internal/responses.ts";
import type { StoredResponse } from "../inference/port.ts";

export const toWire = (r: StoredResponse): StoredResponseWire => ({
  id: r.id,
  org_id: r.orgId,
  ...(r.apiKeyId ? { api_key_id: r.apiKeyId } : {}),
  ...(r.deploymentId ? { deployment_id: r.deploymentId } : {}),
  conversation: r.conversation,
  body: r.body,
});

export const fromWire = (r: StoredResponseWire): StoredResponse => ({
  id: r.id,
  orgId: r.org_id,
  apiKeyId: r.api_key_id,
  deploymentId: r.deployment_id,
  conversation: r.conversation,
  body: r.body,
});
