// Requests that more than one entry point takes (the management API and the dashboard's forms).
import { Type as T } from "@sinclair/typebox";
import { Nullable } from "#core/typebox.ts";

export const TemplateName = T.String({ minLength: 1, maxLength: 200 });
export const TemplateText = T.String({ maxLength: 100_000 });

/** The body of POST /management/prompts, and the dashboard's template form. */
export const CreateTemplateBody = T.Object({
  name: TemplateName,
  system_prompt: T.Optional(Nullable(TemplateText)),
  user_template: T.Optional(Nullable(TemplateText)),
});
