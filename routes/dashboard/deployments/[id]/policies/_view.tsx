import type { PolicyType } from "../../../../../db/schema/index.ts";
import type { PolicyView } from "../../../../../services/policies/policies.ts";
import type { FormValues } from "../../../_shared/form.ts";
import { Layout } from "../../../_shared/layout.tsx";
import { can, type PageInfo } from "../../../_shared/page.ts";
import {
  Checkboxes,
  Csrf,
  Field,
  FormProblem,
  type FormState,
  Select,
  TextArea,
} from "../../../_shared/parts/form.tsx";
import { ActionButton, PageHeader } from "../../../_shared/parts/list.tsx";

export interface DeploymentPoliciesProps {
  page: PageInfo;
  deployment: { id: string; name: string };
  policies: Record<PolicyType, PolicyView>;
  templates: { id: string; name: string }[];
  collections: { id: string; name: string }[];
  /** The organization's other deployments, by name: what the routing policy may name. */
  otherDeployments: string[];
  /** The policy just saved (the redirect's `?saved=`), to say so beside it. */
  saved?: string | undefined;
  /** A form sent with problems: its type, errors and the values as typed. */
  failed?: { type: PolicyType; form: FormState } | undefined;
}

const scanners = {
  input: ["pii", "toxicity", "prompt_injection"],
  output: ["pii", "toxicity"],
} as const;
const actions = ["off", "log", "redact", "block"] as const;

/** A policy's config as the flat values of its form (guardrails: `input_pii_action`, ...). */
/** The autoscaling card's fields: name, label, min, max, and whether fractions are allowed. */
const autoscalingFields: [string, string, number, number | undefined, boolean][] = [
  ["min_replicas", "Minimum replicas (0: scale to zero)", 0, 32, false],
  ["max_replicas", "Maximum replicas", 1, 32, false],
  ["target_in_flight_per_replica", "Target requests in flight per replica", 0, undefined, true],
  [
    "target_tokens_per_second_per_replica",
    "Target tokens per second per replica (optional)",
    0,
    undefined,
    true,
  ],
  ["scale_up_delay_s", "Scale-up delay, seconds (default 5)", 0, undefined, true],
  ["scale_down_delay_s", "Scale-down delay, seconds (default 300)", 0, undefined, true],
  ["cold_start_timeout_s", "Cold-start time-out, seconds (default 120)", 1, 600, true],
  ["max_queued", "Requests that may wait per gateway (default 100)", 0, undefined, false],
];

export function formValuesOf(type: PolicyType, config: Record<string, unknown>): FormValues {
  if (type === "prompt") return { template_id: (config.template_id as string | null) ?? "" };
  if (type === "routing") return { fallbacks: ((config.fallbacks as string[] | undefined) ?? []).join("\n") };
  if (type !== "guardrails") return config;
  const values: FormValues = {};
  for (const stage of ["input", "output"] as const) {
    const settings = (config[stage] ?? {}) as Record<string, unknown>;
    for (const scanner of scanners[stage]) {
      const s = (settings[scanner] ?? {}) as { action?: string; threshold?: number };
      values[`${stage}_${scanner}_action`] = s.action ?? "off";
      if (s.threshold !== undefined) values[`${stage}_${scanner}_threshold`] = String(s.threshold);
    }
    if (stage === "output") values.output_mode = (settings.mode as string | undefined) ?? "blocking";
  }
  return values;
}

const sourceText = {
  deployment: "Set for this deployment",
  organization: "Inherited from the organization",
  default: "Not set: the default applies",
} as const;

function PolicyCard(props: {
  type: PolicyType;
  title: string;
  intro: string;
  p: DeploymentPoliciesProps;
  body: (form: FormState) => JSX.Element;
}) {
  const { type, p } = props;
  const policy = p.policies[type];
  const form: FormState =
    p.failed?.type === type
      ? p.failed.form
      : { values: formValuesOf(type, policy.config as Record<string, unknown>) };
  const writable = can(p.page, "policies:write");
  const base = `/deployments/${p.deployment.id}/policies`;
  return (
    <section class="card policy-form" id={`policy-${type}`} aria-labelledby={`h-${type}`}>
      <h2 id={`h-${type}`} safe>
        {props.title}
      </h2>
      <p class="policy-source" data-source={policy.source}>
        <span class={`badge ${policy.source === "deployment" ? "good" : "neutral"}`}>
          {sourceText[policy.source]}
        </span>{" "}
        <span class="muted" safe>
          {props.intro}
        </span>
      </p>
      {p.saved === type ? (
        <p class="notice" role="status">
          Saved for this deployment; calls use it within a second.
        </p>
      ) : null}
      {writable ? (
        <form method="post" action={`${base}/${type}`}>
          <Csrf token={p.page.csrf} />
          <FormProblem errors={form.errors} />
          {props.body(form)}
          <div class="actions">
            <button type="submit">Save for this deployment</button>
          </div>
        </form>
      ) : (
        <fieldset disabled class="field">
          {props.body(form)}
        </fieldset>
      )}
      {writable && policy.source === "deployment" ? (
        <ActionButton
          action={`${base}/${type}/reset`}
          label="Use the organization's"
          tone="secondary"
          csrf={p.page.csrf}
          confirm={`Remove this deployment's own ${props.title.toLowerCase()} policy? The organization's (or the default) applies again.`}
        />
      ) : null}
    </section>
  );
}

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

      <PolicyCard
        type="prompt"
        title="Prompt template"
        intro="Applied to every chat call of this deployment."
        p={p}
        body={(form) => (
          <Select
            name="template_id"
            label="Template"
            blank="None (no template, even if the organization has one)"
            choices={p.templates.map((t) => ({ value: t.id, label: t.name }))}
            hint={
              p.templates.length === 0 ? "No templates yet: create one under Prompt templates." : undefined
            }
            {...form}
          />
        )}
      />

      <PolicyCard
        type="rag"
        title="Retrieval"
        intro="Passages of these collections are added to the prompt."
        p={p}
        body={(form) => (
          <>
            {p.collections.length > 0 ? (
              <Checkboxes
                name="collection_ids"
                label="Collections"
                choices={p.collections.map((c) => ({ value: c.id, label: c.name }))}
                hint="None ticked: no retrieval."
                {...form}
              />
            ) : (
              <p class="muted">No collections yet: create one in the Knowledge base first.</p>
            )}
            <div class="grid2">
              <Field name="top_k" label="Passages (top_k)" type="number" min={1} max={50} {...form} />
              <Field
                name="min_score"
                label="Minimum score (0 to 1)"
                type="number"
                min={0}
                max={1}
                attrs={{ step: "0.01" }}
                {...form}
              />
            </div>
            <Field
              name="embedding_deployment"
              label="Embedding deployment (optional)"
              hint="The name of a deployment that serves embeddings: its vector ranking is fused with full-text search. Empty: full text alone."
              {...form}
            />
          </>
        )}
      />

      <PolicyCard
        type="guardrails"
        title="Guardrails"
        intro="Scanners of the prompt and of the answer; redact is for PII only."
        p={p}
        body={(form) => (
          <>
            {(["input", "output"] as const).map((stage) => (
              <fieldset class="field">
                <legend>{stage === "input" ? "Prompt (input)" : "Answer (output)"}</legend>
                {scanners[stage].map((scanner) => (
                  <div class="grid2">
                    <Select
                      name={`${stage}_${scanner}_action`}
                      label={`${scanner.replace("_", " ")}: action`}
                      choices={actions
                        .filter((a) => a !== "redact" || scanner === "pii")
                        .map((a) => ({ value: a, label: a }))}
                      {...form}
                    />
                    <Field
                      name={`${stage}_${scanner}_threshold`}
                      label={`${scanner.replace("_", " ")}: threshold (optional, 0 to 1)`}
                      type="number"
                      min={0}
                      max={1}
                      attrs={{ step: "0.05" }}
                      {...form}
                    />
                  </div>
                ))}
                {stage === "output" ? (
                  <Select
                    name="output_mode"
                    label="Answer scanning"
                    choices={[
                      { value: "blocking", label: "blocking: scanned before the caller sees it" },
                      { value: "async", label: "async: scanned afterwards, logged only" },
                    ]}
                    {...form}
                  />
                ) : null}
              </fieldset>
            ))}
          </>
        )}
      />

      <PolicyCard
        type="rate_limit"
        title="Rate limit"
        intro="Counted per API key (per user in the playground), per minute. Blank: no limit."
        p={p}
        body={(form) => (
          <div class="grid2">
            <Field name="requests_per_minute" label="Requests per minute" type="number" min={1} {...form} />
            <Field name="tokens_per_minute" label="Tokens per minute" type="number" min={1} {...form} />
          </div>
        )}
      />

      <PolicyCard
        type="quota"
        title="Quota"
        intro="Counted per organization, per UTC day. Blank: no quota."
        p={p}
        body={(form) => (
          <div class="grid2">
            <Field name="requests_per_day" label="Requests per day" type="number" min={1} {...form} />
            <Field name="tokens_per_day" label="Tokens per day" type="number" min={1} {...form} />
          </div>
        )}
      />

      <PolicyCard
        type="routing"
        title="Routing"
        intro="Other deployments that answer, in order, when this one has no ready replica or is stopped, fails (5xx), does not answer in time, or is rate-limited (429). The answer then carries x-served-by."
        p={p}
        body={(form) => (
          <TextArea
            name="fallbacks"
            label="Fallbacks (one deployment name a line, tried from the top)"
            rows={3}
            hint={
              p.otherDeployments.length > 0
                ? `Empty: no fallbacks. Deployments of this organization: ${p.otherDeployments.join(", ")}.`
                : "Empty: no fallbacks."
            }
            {...form}
          />
        )}
      />

      <PolicyCard
        type="autoscaling"
        title="Autoscaling"
        intro="Replicas follow the requests in flight that the gateways report. Minimum 0 scales to zero when idle; a request then waits for a replica to start. Each decision and its reason is listed on the deployment's page."
        p={p}
        body={(form) => (
          <>
            <div class="grid2">
              {autoscalingFields.map(([name, label, min, max, decimal]) => (
                <Field
                  name={name}
                  label={label}
                  type="number"
                  min={min}
                  {...(max === undefined ? {} : { max })}
                  {...(decimal ? { attrs: { step: "any" } } : {})}
                  {...form}
                />
              ))}
            </div>
          </>
        )}
      />

      <section class="card" id="policy-preview" aria-labelledby="h-preview">
        <h2 id="h-preview">Try a question</h2>
        <p class="muted">
          What the model would receive: the input guardrails applied (redaction shown, a block named), then
          the template and the retrieved passages. The model is not called.
        </p>
        <form
          id="preview-form"
          method="post"
          action={`/deployments/${p.deployment.id}/preview`}
          hx-post={`/deployments/${p.deployment.id}/preview`}
          hx-target="#preview-result"
          hx-swap="innerHTML"
        >
          <Csrf token={p.page.csrf} />
          <TextArea name="question" label="A user message" rows={3} form="preview" />
          <div class="actions">
            <button type="submit" class="secondary">
              Show what the model receives
            </button>
          </div>
        </form>
        <div id="preview-result" aria-live="polite"></div>
      </section>
    </Layout>
  );
}
