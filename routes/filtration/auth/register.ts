import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { register } from "#services/auth/register.ts";
import { Session } from "../_schemas/auth.ts";

export const POST = route({
  access: "public",
  summary: "Create an account (while ALLOW_REGISTRATION is true) and sign in",
  description:
    "Without organization_name the account joins the default organization as a viewer; with it, a new " +
    "organization is created and the account is its admin. 403 while registration is closed, 409 for an " +
    "e-mail (or organization name) already taken.",
  body: t.Object({
    email: t.String({ format: "email", maxLength: 320 }),
    password: t.String({ minLength: 12, maxLength: 256 }),
    organization_name: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  }),
  status: 201,
  response: Session,
  handler: ({ ctx, body }) => register(ctx, body),
});
