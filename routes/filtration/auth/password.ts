import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { changePassword } from "#services/auth/change-password.ts";
import { Session } from "../_schemas/auth.ts";

export const POST = route({
  access: "authenticated",
  summary: "Change your password",
  description:
    "Ends every session of the user, in every organization, and answers a new one for the caller. " +
    "400 when `current_password` is wrong (counted by the sign-in throttle: 429 with Retry-After once " +
    "it locks) or `new_password` is shorter than PASSWORD_MIN_LENGTH (12 unless set higher).",
  body: t.Object({
    current_password: t.String({ minLength: 1, maxLength: 256 }),
    new_password: t.String({ minLength: 1, maxLength: 256 }),
  }),
  response: Session,
  handler: ({ ctx, body }) => changePassword(ctx, body),
});
