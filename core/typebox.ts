// Schema helpers for the request schemas services own (services know TypeBox, not Elysia).
import { Type as T, type TSchema } from "@sinclair/typebox";

/** A value or null, marked `nullable` for the OpenAPI document, the way t.Nullable of Elysia marks it. */
export const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()], { nullable: true });
