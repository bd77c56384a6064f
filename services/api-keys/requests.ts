// Requests that more than one entry point takes (the management API and the dashboard's forms).
import { Type as T } from "@sinclair/typebox";

/** The body of POST /management/api-keys, and the dashboard's create form. */
export const CreateApiKeyBody = T.Object({
  name: T.String({ minLength: 1, maxLength: 100 }),
  deployment_ids: T.Optional(T.Array(T.String({ format: "uuid" }), { maxItems: 100 })),
  expires_at: T.Optional(T.String({ format: "date-time" })),
});
