import type { ChatMessage } from "#contracts/openai/chat.ts";
import type { PromptTemplateView } from "#services/prompts/templates.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, TextArea } from "../_shared/parts/form.tsx";
import { ActionButton, Ago, EmptyState, PageHeader, Table } from "../_shared/parts/list.tsx";

/** The fields of a template, for a new one or a new version; with a preview of what they make. */
function TemplateForm({
  page,
  action,
  form,
  submit,
}: {
  page: PageInfo;
  action: string;
  form: FormState;
  submit: string;
}) {
  return (
    <form method="post" action={action} id="template-form">
      <Csrf token={page.csrf} />
      <FormProblem errors={form.errors} />
      <Field name="name" label="Name" required {...form} />
      <TextArea name="system_prompt" label="System prompt (optional)" rows={3} {...form} />
      <TextArea
        name="user_template"
        label="User template (optional)"
        rows={4}
        hint="Must hold {{input}} (the user's message); {{context}} receives retrieved knowledge-base passages."
        {...form}
      />
      <div class="button-row">
        <button type="submit" safe>
          {submit}
        </button>
        <button
          type="button"
          class="secondary"
          hx-post="/prompts/preview"
          hx-include="#template-form"
          hx-target="#template-preview"
          hx-swap="innerHTML"
        >
          Preview
        </button>
      </div>
      <div id="template-preview" aria-live="polite"></div>
    </form>
  );
}

export function PreviewMessages({
  messages,
  error,
  title = "What the model receives for the sample question",
}: {
  messages: ChatMessage[];
  error?: string | undefined;
  title?: string;
}) {
  if (error)
    return (
      <p class="field-error" safe>
        {error}
      </p>
    );
  return (
    <div class="preview">
      <h3 safe>{title}</h3>
      {messages.map((m) => (
        <div class="turn">
          <div class="turn-who">{m.role}</div>
          <pre class="text" safe>
            {typeof m.content === "string" ? m.content : JSON.stringify(m.content)}
          </pre>
        </div>
      ))}
    </div>
  );
}

export function PromptsPage({
  page,
  templates,
  form = {},
}: {
  page: PageInfo;
  templates: PromptTemplateView[];
  form?: FormState;
}) {
  return (
    <Layout title="Prompt templates" page={page}>
      <PageHeader title="Prompt templates" />
      {templates.length === 0 ? (
        <EmptyState title="No templates yet">
          <p>
            A template puts a system prompt and a frame around users' messages; attach it in a deployment's
            policies.
          </p>
        </EmptyState>
      ) : (
        <Table label="Prompt templates">
          <thead>
            <tr>
              <th>Name</th>
              <th class="num">Version</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {templates.map((t) => (
              <tr>
                <td>
                  <a href={`/prompts/${t.id}`} safe>
                    {t.name}
                  </a>
                </td>
                <td class="num" safe>
                  {String(t.version)}
                </td>
                <td>
                  <Ago at={t.updated_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {can(page, "prompts:write") ? (
        <section class="card">
          <h2>Create a template</h2>
          <TemplateForm page={page} action="/prompts" form={form} submit="Create template" />
        </section>
      ) : null}
    </Layout>
  );
}

export function PromptPage({
  page,
  template,
  versions,
  form,
}: {
  page: PageInfo;
  template: PromptTemplateView;
  versions: PromptTemplateView[];
  form?: FormState;
}) {
  const values = {
    name: template.name,
    system_prompt: template.system_prompt ?? "",
    user_template: template.user_template ?? "",
  };
  return (
    <Layout title={`Template ${template.name}`} page={page}>
      <p>
        <a href="/prompts">← Prompt templates</a>
      </p>
      <PageHeader title={`Template ${template.name}`}>
        {can(page, "prompts:write") ? (
          <ActionButton
            action={`/prompts/${template.id}/delete`}
            label="Delete template"
            tone="danger"
            csrf={page.csrf}
            confirm={`Delete the template ${template.name} and all its versions?`}
          />
        ) : null}
      </PageHeader>
      {can(page, "prompts:write") ? (
        <section class="card">
          <h2 safe>{`Edit (saving makes version ${template.version + 1})`}</h2>
          <TemplateForm
            page={page}
            action={`/prompts/${template.id}`}
            form={form ?? { values }}
            submit="Save new version"
          />
        </section>
      ) : null}
      <h2>Versions</h2>
      <Table label="Versions">
        <thead>
          <tr>
            <th class="num">Version</th>
            <th>System prompt</th>
            <th>User template</th>
            <th>Saved</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr>
              <td class="num" safe>
                {String(v.version)}
              </td>
              <td class="mono" safe>
                {v.system_prompt ?? "—"}
              </td>
              <td class="mono" safe>
                {v.user_template ?? "—"}
              </td>
              <td>
                <Ago at={v.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Layout>
  );
}
