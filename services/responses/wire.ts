// A stored response on the wire between the gateways (/internal/responses/*, snake_case as the rest of
// /internal): the filtration routes validate with the schema, the inference gateway's HTTP port
// (server/filtration-http-port.ts) writes and reads it with these two functions.
import { type Static, Type as T } from "@sinclair/typebox";
import type { StoredResponse } from "../inference/port.ts";
import { ConversationItem, ResponseObject } from "../inference/responses/schemas.ts";

const Uuid = T.String({ format: "uuid" });

export const StoredResponseWire = T.Object({
  id: T.String({ minLength: 1, maxLength: 256 }),
  org_id: Uuid,
  api_key_id: T.Optional(Uuid),
  deployment_id: T.Optional(Uuid),
  conversation: T.Array(ConversationItem),
  body: ResponseObject,
});
export type StoredResponseWire = Static<typeof StoredResponseWire>;

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
