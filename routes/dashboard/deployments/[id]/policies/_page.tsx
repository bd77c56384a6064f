// The deployment's policies page, rendered by its GET and by the POST of a form with problems: every
// value read through the same services as GET /management/config/{policy_type}?deployment_id=…
import { type PolicyType, policyTypes } from "#core/domain.ts";
import { type PolicyConfig, policySchemas } from "#core/policies.ts";
import { type FormResult, type FormValues, parseForm } from "#routes/dashboard/_shared/form.ts";
import { can, type PageInfo } from "#routes/dashboard/_shared/page.ts";
import type { RequestContext } from "#services/context.ts";
import { listCollections } from "#services/knowledge-base/collections.ts";
import { getDeployment, listDeployments } from "#services/orchestration/deployment-queries.ts";
import { getPolicy } from "#services/policies/policies.ts";
import { listTemplates } from "#services/prompts/templates.ts";
import { DeploymentPoliciesPage, type DeploymentPoliciesProps } from "./_view.tsx";

export async function renderPolicies(
  ctx: RequestContext,
  page: PageInfo,
  deploymentId: string,
  failed?: DeploymentPoliciesProps["failed"],
  saved?: string,
) {
  const deployment = await getDeployment(ctx, deploymentId);
  const [views, templates, collections, others] = await Promise.all([
    // Budgets belong to the organization or an API key, never to a deployment.
    Promise.all(
      policyTypes
        .filter((type) => type !== "budget")
        .map((type) => getPolicy(ctx, type, { deployment_id: deployment.deployment_id })),
    ),
    can(page, "prompts:read") ? listTemplates(ctx).then((r) => r.templates) : [],
    can(page, "knowledge_base:read") ? listCollections(ctx).then((r) => r.collections) : [],
    can(page, "deployments:read") ? listDeployments(ctx).then((r) => r.deployments) : [],
  ]);
  return (
    <DeploymentPoliciesPage
      page={page}
      deployment={{ id: deployment.deployment_id, name: deployment.model_name }}
      policies={new Map(views.map((v) => [v.policy_type, v]))}
      templates={templates.map((t) => ({ id: t.id, name: t.name }))}
      collections={collections.map((c) => ({ id: c.id, name: c.name }))}
      otherDeployments={others
        .filter((d) => d.deployment_id !== deployment.deployment_id)
        .map((d) => d.model_name)}
      failed={failed}
      saved={saved}
    />
  );
}

const blank = (v: unknown) => v === undefined || (typeof v === "string" && v.trim() === "");

/** A scanner's fields as the form sent them: setPolicy checks them against the guardrails schema. */
interface PostedScanner {
  action: unknown;
  threshold?: unknown;
}
/** A config from a form: checked against its type's schema, or guardrails' as posted (setPolicy checks). */
type PostedConfig =
  | PolicyConfig<PolicyType>
  | { input: { [scanner: string]: PostedScanner }; output: { [field: string]: PostedScanner | unknown } };

/** The scanners of one stage the form sets (action not blank), with their thresholds as numbers. */
function postedScanners(
  form: FormValues,
  stage: "input" | "output",
  names: string[],
): { [scanner: string]: PostedScanner } {
  const out: { [scanner: string]: PostedScanner } = {};
  for (const scanner of names) {
    const action = form[`${stage}_${scanner}_action`];
    const threshold = form[`${stage}_${scanner}_threshold`];
    if (blank(action)) continue;
    out[scanner] = {
      action,
      ...(blank(threshold)
        ? {}
        : { threshold: Number.isNaN(Number(threshold)) ? threshold : Number(threshold) }),
    };
  }
  return out;
}

/**
 * A policy form's values as the type's config, checked against the type's own schema (the one
 * setPolicy validates with). Guardrails' flat fields (`input_pii_action`) become its nested object and
 * are checked by setPolicy, whose field names (`config.input.pii.action`) the route maps back.
 */
export function configFromForm(type: PolicyType, form: FormValues): FormResult<PostedConfig> {
  if (type === "prompt") {
    if (blank(form.template_id)) return { ok: true, value: { template_id: null } };
    return parseForm(policySchemas.prompt, form);
  }
  if (type === "routing") {
    // One name a line (commas too), in the order they are tried.
    const names = typeof form.fallbacks === "string" ? form.fallbacks.split(/[\n,]/) : [];
    const fallbacks = names.map((n) => n.trim()).filter((n) => n !== "");
    // Prefix affinity is on unless turned off: "on" leaves the field out, as the API's default.
    return {
      ok: true,
      value: form.prefix_affinity === "off" ? { fallbacks, prefix_affinity: false } : { fallbacks },
    };
  }
  if (type === "rag") {
    return parseForm(policySchemas.rag, { collection_ids: [], ...form }, { arrays: ["collection_ids"] });
  }
  if (type === "guardrails") {
    const input = postedScanners(form, "input", ["pii", "toxicity", "prompt_injection"]);
    const output = {
      ...postedScanners(form, "output", ["pii", "toxicity"]),
      ...(blank(form.output_mode) ? {} : { mode: form.output_mode }),
    };
    return { ok: true, value: { input, output } };
  }
  return parseForm(policySchemas[type], form);
}
