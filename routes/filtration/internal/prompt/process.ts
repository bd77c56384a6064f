import { t } from "elysia";
import { route } from "../../../../server/http/route.ts";
import { processPrompt } from "../../../../services/prompts/process.ts";
import { Messages, Uuid } from "../../_schemas/internal.ts";

export const POST = route({
  access: "internal",
  summary: "Apply a prompt template (and, later, retrieved context) to messages",
  description:
    "The template is `template_id` when given, else the one the deployment's `prompt` policy names; none: the " +
    "messages come back unchanged. `{{context}}` is filled with an empty string until retrieval exists.",
  bodyLimit: 8 * 1024 * 1024,
  body: t.Object({
    messages: Messages,
    template_id: t.Optional(t.String({ maxLength: 64 })),
    rag_config: t.Optional(t.Record(t.String(), t.Unknown())),
    deployment_id: t.Optional(t.String({ maxLength: 64 })),
    org_id: t.Optional(Uuid),
  }),
  response: t.Object({ messages: t.Array(t.Record(t.String(), t.Unknown())) }),
  handler: async ({ ctx, body }) => ({
    messages: await processPrompt(ctx, {
      messages: body.messages,
      templateId: body.template_id,
      deploymentId: body.deployment_id,
      orgId: body.org_id,
      rag: body.rag_config,
    }),
  }),
});
