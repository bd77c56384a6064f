// What the internal API's contracts share (the filtration gateway's /internal/* endpoints).
import { Type as T } from "@sinclair/typebox";

/** A UUID, as the internal endpoints take ids. The format is Elysia's (registered where a gateway runs). */
export const Uuid = T.String({ format: "uuid" });
