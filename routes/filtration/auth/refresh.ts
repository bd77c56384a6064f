import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { refresh } from "#services/auth/refresh.ts";
import { Session } from "../_schemas/auth.ts";

export const POST = route({
  access: "public",
  summary: "Exchange a refresh token for new tokens (the old one stops working)",
  description:
    "A refresh token used twice revokes every token of its family: both holders must sign in again.",
  body: t.Object({ refresh_token: t.String({ minLength: 1, maxLength: 4096 }) }),
  response: Session,
  handler: ({ ctx, body }) => refresh(ctx, body.refresh_token),
});
