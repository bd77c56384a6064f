// The fields of each policy's form on a deployment's policies page, one component per policy type.
import {
  Checkboxes,
  Field,
  type FormState,
  Select,
  TextArea,
} from "#routes/dashboard/_shared/parts/form.tsx";

export const scanners = {
  input: ["pii", "toxicity", "prompt_injection"],
  output: ["pii", "toxicity"],
} as const;
const actions = ["off", "log", "redact", "block"] as const;

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

export function PromptFields({
  form,
  templates,
}: {
  form: FormState;
  templates: { id: string; name: string }[];
}) {
  return (
    <Select
      name="template_id"
      label="Template"
      blank="None (no template, even if the organization has one)"
      choices={templates.map((t) => ({ value: t.id, label: t.name }))}
      hint={templates.length === 0 ? "No templates yet: create one under Prompt templates." : undefined}
      {...form}
    />
  );
}

export function RetrievalFields({
  form,
  collections,
}: {
  form: FormState;
  collections: { id: string; name: string }[];
}) {
  return (
    <>
      {collections.length > 0 ? (
        <Checkboxes
          name="collection_ids"
          label="Collections"
          choices={collections.map((c) => ({ value: c.id, label: c.name }))}
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
  );
}

export function GuardrailsFields({ form }: { form: FormState }) {
  return (
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
  );
}

/** Rate limit and quota: counts, each blank for no limit. */
export function CountFields({ form, counts }: { form: FormState; counts: [name: string, label: string][] }) {
  return (
    <div class="grid2">
      {counts.map(([name, label]) => (
        <Field name={name} label={label} type="number" min={1} {...form} />
      ))}
    </div>
  );
}

export function RoutingFields({ form, otherDeployments }: { form: FormState; otherDeployments: string[] }) {
  return (
    <>
      <TextArea
        name="fallbacks"
        label="Fallbacks (one deployment name a line, tried from the top)"
        rows={3}
        hint={
          otherDeployments.length > 0
            ? `Empty: no fallbacks. Deployments of this organization: ${otherDeployments.join(", ")}.`
            : "Empty: no fallbacks."
        }
        {...form}
      />
      <Select
        name="prefix_affinity"
        label="Replica choice"
        choices={[
          {
            value: "on",
            label: "by prompt prefix: the replica holding the conversation, within a load bound",
          },
          { value: "off", label: "fewest requests in flight only" },
        ]}
        {...form}
      />
    </>
  );
}

export function AutoscalingFields({ form }: { form: FormState }) {
  return (
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
  );
}
