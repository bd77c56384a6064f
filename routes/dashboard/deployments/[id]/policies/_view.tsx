import type { PolicyType } from "#core/domain.ts";
import { Layout } from "#routes/dashboard/_shared/layout.tsx";
import { Csrf, type FormState, TextArea } from "#routes/dashboard/_shared/parts/form.tsx";
import { PageHeader } from "#routes/dashboard/_shared/parts/list.tsx";
import { type DeploymentPoliciesProps, PolicyCard } from "./_card.tsx";
import {
  AutoscalingFields,
  CountFields,
  GuardrailsFields,
  PromptFields,
  RetrievalFields,
  RoutingFields,
} from "./_fields.tsx";

export type { DeploymentPoliciesProps } from "./_card.tsx";

/** The cards of the page, in order: each policy type, what it does, and its fields. */
const cards: {
  type: PolicyType;
  title: string;
  intro: string;
  body: (form: FormState, p: DeploymentPoliciesProps) => JSX.Element;
}[] = [
  {
    type: "prompt",
    title: "Prompt template",
    intro: "Applied to every chat call of this deployment.",
    body: (form, p) => <PromptFields form={form} templates={p.templates} />,
  },
  {
    type: "rag",
    title: "Retrieval",
    intro: "Passages of these collections are added to the prompt.",
    body: (form, p) => <RetrievalFields form={form} collections={p.collections} />,
  },
  {
    type: "guardrails",
    title: "Guardrails",
    intro: "Scanners of the prompt and of the answer; redact is for PII only.",
    body: (form) => <GuardrailsFields form={form} />,
  },
  {
    type: "rate_limit",
    title: "Rate limit",
    intro: "Counted per API key (per user in the playground), per minute. Blank: no limit.",
    body: (form) => (
      <CountFields
        form={form}
        counts={[
          ["requests_per_minute", "Requests per minute"],
          ["tokens_per_minute", "Tokens per minute"],
        ]}
      />
    ),
  },
  {
    type: "quota",
    title: "Quota",
    intro: "Counted per organization, per UTC day. Blank: no quota.",
    body: (form) => (
      <CountFields
        form={form}
        counts={[
          ["requests_per_day", "Requests per day"],
          ["tokens_per_day", "Tokens per day"],
        ]}
      />
    ),
  },
  {
    type: "routing",
    title: "Routing",
    intro:
      "Other deployments that answer, in order, when this one has no ready replica or is stopped, fails (5xx), does not answer in time, or is rate-limited (429). The answer then carries x-served-by.",
    body: (form, p) => <RoutingFields form={form} otherDeployments={p.otherDeployments} />,
  },
  {
    type: "autoscaling",
    title: "Autoscaling",
    intro:
      "Replicas follow the requests in flight that the gateways report. Minimum 0 scales to zero when idle; a request then waits for a replica to start. Each decision and its reason is listed on the deployment's page.",
    body: (form) => <AutoscalingFields form={form} />,
  },
];

export function DeploymentPoliciesPage(p: DeploymentPoliciesProps) {
  return (
    <Layout title={`Policies of ${p.deployment.name}`} page={p.page}>
      <p>
        <a href={`/deployments/${p.deployment.id}`}>
          ← Deployment <span safe>{p.deployment.name}</span>
        </a>
      </p>
      <PageHeader title={`Policies of ${p.deployment.name}`} />
      <p class="muted">
        A policy set here replaces the organization's of the same kind for this deployment only, as a whole.
        Changes apply to calls within a second.
      </p>

      {cards.map((c) => (
        <PolicyCard type={c.type} title={c.title} intro={c.intro} p={p} body={(form) => c.body(form, p)} />
      ))}

      <PreviewForm deploymentId={p.deployment.id} csrf={p.page.csrf} />
    </Layout>
  );
}

/** "Try a question": what the model would receive, answered beside the form without calling it. */
function PreviewForm({ deploymentId, csrf }: { deploymentId: string; csrf: string }) {
  return (
    <section class="card" id="policy-preview" aria-labelledby="h-preview">
      <h2 id="h-preview">Try a question</h2>
      <p class="muted">
        What the model would receive: the input guardrails applied (redaction shown, a block named), then the
        template and the retrieved passages. The model is not called.
      </p>
      <form
        id="preview-form"
        method="post"
        action={`/deployments/${deploymentId}/preview`}
        hx-post={`/deployments/${deploymentId}/preview`}
        hx-target="#preview-result"
        hx-swap="innerHTML"
      >
        <Csrf token={csrf} />
        <TextArea name="question" label="A user message" rows={3} form="preview" />
        <div class="actions">
          <button type="submit" class="secondary">
            Show what the model receives
          </button>
        </div>
      </form>
      <div id="preview-result" aria-live="polite"></div>
    </section>
  );
}
