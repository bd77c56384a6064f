// /internal/responses/*: a stored response of POST /v1/responses between the gateways (snake_case as the
// rest of /internal). Written once here: the routes (routes/filtration/internal/responses/) validate
// and document with these schemas; the client (server/filtration-http-port.ts) checks the answers, and
// services/responses/wire.ts maps a stored response to and from the wire.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ConversationItem, ResponseObject } from "../openai/responses.ts";
import { Uuid } from "./common.ts";

export const StoredResponseWire = T.Object({
  id: T.String({ minLength: 1, maxLength: 256 }),
  org_id: Uuid,
  api_key_id: T.Optional(Uuid),
  deployment_id: T.Optional(Uuid),
  conversation: T.Array(ConversationItem),
  body: ResponseObject,
});
export type StoredResponseWire = Static<typeof StoredResponseWire>;

/** A stored response looked up with the caller's API key (find and delete). */
export const KeyedResponseLookup = T.Object({
  api_key: T.String({ maxLength: 256 }),
  id: T.String({ minLength: 1, maxLength: 256 }),
});

const LookupRefusal = T.Union([T.Literal("invalid_api_key"), T.Literal("not_found")]);

export const FoundResponse = T.Union([
  T.Object({ found: T.Literal(false), reason: LookupRefusal }),
  T.Object({ found: T.Literal(true), response: StoredResponseWire }),
]);
export type FoundResponse = Static<typeof FoundResponse>;

export const DeletedStoredResponse = T.Object({
  deleted: T.Boolean(),
  reason: T.Optional(LookupRefusal),
});
export type DeletedStoredResponse = Static<typeof DeletedStoredResponse>;

export const checkFoundResponse = TypeCompiler.Compile(FoundResponse);
export const checkDeletedStoredResponse = TypeCompiler.Compile(DeletedStoredResponse);
