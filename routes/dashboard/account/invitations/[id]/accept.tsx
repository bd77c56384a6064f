import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { acceptInvitation } from "#services/auth/invitations.ts";
import { answerInvitation } from "../_answer.ts";

export const POST = route({
  access: "authenticated",
  summary: "Accept an invitation to another organization from the Account page",
  html: true,
  params: t.Object({ id: t.String({ format: "uuid" }) }),
  handler: ({ ctx, params }) => answerInvitation(() => acceptInvitation(ctx, params.id), "joined"),
});
