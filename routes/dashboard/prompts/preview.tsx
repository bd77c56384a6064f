import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { applyTemplate } from "#services/prompts/apply.ts";
import { checkTemplateContent } from "#services/prompts/templates.ts";
import { PreviewMessages } from "./_view.tsx";

const sample = {
  question: "How many weeks of parental leave do we get?",
  context:
    "[1] (handbook.md)\nLeave policy > Parental leave\n\nEmployees receive sixteen weeks of paid parental leave…",
};

export const POST = route({
  access: "prompts:read",
  summary: "The messages a template makes of a sample question (the template form's preview)",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: ({ body }) => {
    const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : null);
    const systemPrompt = text(body.system_prompt);
    const userTemplate = text(body.user_template);
    const problem = checkTemplateContent(systemPrompt, userTemplate);
    if (problem) return <PreviewMessages messages={[]} error={problem} />;
    const messages = applyTemplate(
      [{ role: "user", content: sample.question }],
      { systemPrompt, userTemplate },
      sample.context,
    );
    return <PreviewMessages messages={messages} />;
  },
});
