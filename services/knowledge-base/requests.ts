// Requests that more than one entry point takes (the management API and the dashboard's forms).
import { Type as T } from "@sinclair/typebox";

/** The body of POST /management/knowledge-base/collections, and the dashboard's form. */
export const CreateCollectionBody = T.Object({
  name: T.String({ minLength: 1, maxLength: 100 }),
  description: T.Optional(T.String({ maxLength: 1000 })),
});
