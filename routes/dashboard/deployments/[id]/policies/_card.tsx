// One policy's card on a deployment's policies page: where its value comes from, its form (or the same
// fields disabled for a reader), the note after a save and the button back to the organization's.
import { Value } from "@sinclair/typebox/value";
import type { PolicyType } from "#core/domain.ts";
import { GuardrailsConfig, PromptConfig, RoutingConfig } from "#core/policies.ts";
import type { FormValues } from "#routes/dashboard/_shared/form.ts";
import { can, type PageInfo } from "#routes/dashboard/_shared/page.ts";
import { Csrf, FormProblem, type FormState } from "#routes/dashboard/_shared/parts/form.tsx";
import { ActionButton } from "#routes/dashboard/_shared/parts/list.tsx";
import type { PolicyView } from "#services/policies/policies.ts";
import { scanners } from "./_fields.tsx";

export interface DeploymentPoliciesProps {
  page: PageInfo;
  deployment: { id: string; name: string };
  /** The deployment's policies by type (budgets, which belong to no deployment, are not here). */
  policies: ReadonlyMap<PolicyType, PolicyView>;
  templates: { id: string; name: string }[];
  collections: { id: string; name: string }[];
  /** The organization's other deployments, by name: what the routing policy may name. */
  otherDeployments: string[];
  /** The policy just saved (the redirect's `?saved=`), to say so beside it. */
  saved?: string | undefined;
  /** A form sent with problems: its type, errors and the values as typed. */
  failed?: { type: PolicyType; form: FormState } | undefined;
}

/**
 * A policy's config as the flat values of its form (guardrails: `input_pii_action`, ...). The view holds
 * the config of `type` (or `{}`, the default): the check gives it that type's fields.
 */
export function formValuesOf(type: PolicyType, config: PolicyView["config"]): FormValues {
  if (type === "prompt") {
    const prompt = Value.Check(PromptConfig, config) ? config : undefined;
    return { template_id: prompt?.template_id ?? "" };
  }
  if (type === "routing") {
    const routing = Value.Check(RoutingConfig, config) ? config : {};
    return {
      fallbacks: (routing.fallbacks ?? []).join("\n"),
      prefix_affinity: routing.prefix_affinity === false ? "off" : "on",
    };
  }
  if (type !== "guardrails") return config;
  const guardrails = Value.Check(GuardrailsConfig, config) ? config : {};
  const values: FormValues = {};
  scannerValues(values, "input", scanners.input, guardrails.input ?? {});
  scannerValues(values, "output", scanners.output, guardrails.output ?? {});
  values.output_mode = guardrails.output?.mode ?? "blocking";
  return values;
}

/** One stage's scanners as form values: `<stage>_<scanner>_action` and, when set, `_threshold`. */
function scannerValues<S extends string>(
  values: FormValues,
  stage: "input" | "output",
  names: readonly S[],
  settings: { [K in S]?: { action?: string; threshold?: number } },
): void {
  for (const scanner of names) {
    const s = settings[scanner] ?? {};
    values[`${stage}_${scanner}_action`] = s.action ?? "off";
    if (s.threshold !== undefined) values[`${stage}_${scanner}_threshold`] = String(s.threshold);
  }
}

const sourceText = {
  deployment: "Set for this deployment",
  organization: "Inherited from the organization",
  default: "Not set: the default applies",
} as const;

export function PolicyCard(props: {
  type: PolicyType;
  title: string;
  intro: string;
  p: DeploymentPoliciesProps;
  body: (form: FormState) => JSX.Element;
}) {
  const { type, p } = props;
  const policy = p.policies.get(type);
  if (!policy) throw new Error(`the ${type} policy was not read for this page`);
  const form: FormState =
    p.failed?.type === type ? p.failed.form : { values: formValuesOf(type, policy.config) };
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
