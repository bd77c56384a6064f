import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { previewPrompt } from "#services/prompts/preview.ts";
import { PolicyPreview } from "./_preview.tsx";

export const POST = route({
  access: "policies:read",
  summary: "What the deployment's model would receive for a question (the policies page's preview)",
  html: true,
  params: t.Object({ id: t.String() }),
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, params, body }) => {
    const question = typeof body.question === "string" ? body.question.trim() : "";
    if (question === "") return <PolicyPreview error="Write a message to try." />;
    const preview = await previewPrompt(ctx, params.id, [{ role: "user", content: question }]);
    return <PolicyPreview preview={preview} />;
  },
});
