// The deploy form of the deployments page: the deployment's fields, the engine's settings (a group per
// engine) and the name checked as it is typed.
import { engineIds } from "#core/domain.ts";
import type { ModelView } from "#services/orchestration/views.ts";
import type { PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, Select, TextArea } from "../_shared/parts/form.tsx";
import { configurationFields } from "./_form.ts";
import type { DeployPool } from "./_model.ts";

export function DeployForm({
  page,
  pools,
  models,
  form,
}: {
  page: PageInfo;
  pools: DeployPool[];
  models: ModelView[];
  form: FormState;
}) {
  const values = { workload_type: "inference", engine: "llama.cpp", replicas: "1", ...form.values };
  const state = { values, errors: form.errors };
  const usable = pools.filter((p) => p.accepts_deployments);
  return (
    <section class="card">
      <h2>Deploy a model</h2>
      {usable.length === 0 ? (
        <p class="notice warn">
          There is no pool to deploy on yet: <a href="/pools">create one</a> first.
        </p>
      ) : null}
      <form method="post" action="/deployments">
        <Csrf token={page.csrf} />
        <FormProblem errors={form.errors} />
        <div class="grid2">
          <DeploymentFields state={state} usable={usable} />
          <ModelFields state={state} models={models} />
        </div>
        <EngineSettings {...state} />
        <button type="submit">Deploy</button>
      </form>
    </section>
  );
}

/** The deployment's name, job type, engine and pool. */
function DeploymentFields({ state, usable }: { state: FormState; usable: DeployPool[] }) {
  return (
    <>
      <Select
        name="workload_type"
        label="Job type"
        {...state}
        choices={[{ value: "inference", label: "Inference" }]}
      />
      <Select
        name="engine"
        label="Engine"
        {...state}
        choices={engineIds.map((e) => ({ value: e, label: e }))}
      />
      <div>
        <Field
          name="model_name"
          label="Deployment name"
          required
          {...state}
          hint="Unique in the organization: the `model` clients send."
          attrs={{
            "hx-get": "/deployments/name-check",
            "hx-trigger": "input changed delay:300ms",
            "hx-target": "#name-check",
            "hx-swap": "outerHTML",
          }}
        />
        <span id="name-check" aria-live="polite"></span>
      </div>
      <Select
        name="pool_id"
        label="Pool"
        blank="choose a pool"
        {...state}
        choices={usable.map((p) => ({
          value: p.pool_id,
          label: `${p.pool_name} (${p.provider}, ${p.state})`,
        }))}
      />
    </>
  );
}

/** The model, its size (replicas, GPUs), its prices and its image. */
function ModelFields({ state, models }: { state: FormState; models: ModelView[] }) {
  return (
    <>
      <Select
        name="registry_model"
        label="Model from the registry"
        blank="none: use the path or URL below"
        {...state}
        choices={models.map((m) => ({
          value: `registry://${m.model_name}/${m.model_version}`,
          label: `${m.model_name} ${m.model_version} (${m.backend})`,
        }))}
      />
      <Field
        name="inference_model"
        label="…or a model path or URL"
        {...state}
        placeholder="/srv/models/model.gguf, https://…, or a hub id"
      />
      <Field name="replicas" label="Replicas" type="number" {...state} />
      <Field name="gpu_per_replica" label="GPUs per replica" type="number" {...state} placeholder="0" />
      <Field
        name="input_price_per_million"
        label="Price per million input tokens (optional)"
        inputmode="decimal"
        {...state}
        placeholder="0.15"
        hint="In the currency you bill in: each call's cost in its log, spend and budgets."
      />
      <Field
        name="output_price_per_million"
        label="Price per million output tokens (optional)"
        inputmode="decimal"
        {...state}
        placeholder="0.60"
      />
      <Field
        name="image"
        label="Container image (optional)"
        {...state}
        hint="Blank: the engine's documented image (the local provider runs the engine's worker)."
      />
    </>
  );
}

const settingLabels: Record<string, { label: string; hint?: string; placeholder?: string }> = {
  threads: { label: "Threads", hint: "Default: the cores given, less one." },
  parallel: { label: "Requests at once", hint: "Sequences of the context; default 4." },
  context_size: { label: "Context size (tokens)", hint: "Per request; default: the model's, at most 8192." },
  max_model_len: { label: "Max model length (tokens)" },
  quantization: { label: "Quantization", placeholder: "awq, gptq, fp8…" },
  hf_token: { label: "Hugging Face token", hint: "For gated models; stored sealed, never shown again." },
  endpoints: {
    label: "Endpoints",
    hint: "One URL a line: servers or hosted APIs that already run (vLLM, Ollama, https://api.openai.com, …).",
    placeholder: "http://gpu-box:8000/v1",
  },
  credential: {
    label: "Credential",
    hint: "The name of a key stored in the external provider's configuration (Providers page); never the key itself.",
    placeholder: "openai-main",
  },
};

const settingGroups: { engines: string; title: string; fields: Record<string, string> }[] = [
  { engines: "llama.cpp", title: "llama.cpp settings", fields: configurationFields["llama.cpp"] },
  { engines: "vllm sglang tgi", title: "Container engine settings", fields: configurationFields.container },
  {
    engines: "openai-compatible anthropic gemini",
    title: "Endpoints that already run",
    fields: configurationFields["openai-compatible"],
  },
];

/**
 * The engine's configuration: a group of fields per engine (the page's CSS shows the chosen engine's
 * group only) and the raw JSON for anything else.
 */
function EngineSettings(state: FormState) {
  return (
    <>
      {settingGroups.map((group) => (
        <fieldset class="engine-settings" data-engines={group.engines}>
          <legend safe>{group.title}</legend>
          <div class="grid2">
            {Object.entries(group.fields).map(([key, kind]) => {
              const name = `configuration.${key}`;
              const text = settingLabels[key] ?? { label: key };
              return kind === "lines" ? (
                <TextArea
                  name={name}
                  label={text.label}
                  hint={text.hint}
                  placeholder={text.placeholder}
                  rows={2}
                  {...state}
                />
              ) : (
                <Field
                  name={name}
                  label={text.label}
                  hint={text.hint}
                  placeholder={text.placeholder}
                  type={kind === "number" ? "number" : kind === "secret" ? "password" : "text"}
                  {...state}
                />
              );
            })}
          </div>
        </fieldset>
      ))}
      <TextArea
        name="configuration_json"
        label="Other settings (JSON, optional)"
        hint='Any setting of the engine or provider as a JSON object, e.g. {"threads": 2}; the fields above win.'
        rows={2}
        {...state}
      />
    </>
  );
}

/** What the name check answers beside the field. */
export function NameCheck({ status }: { status: "available" | "taken" | "invalid" | "empty" }) {
  const text = {
    available: "✓ available",
    taken: "✗ taken: choose another name",
    invalid: "✗ letters, digits and . _ : / - only, starting with a letter or digit",
    empty: "",
  }[status];
  return (
    <span id="name-check" class={status === "available" ? "check-ok" : "check-bad"} aria-live="polite" safe>
      {text}
    </span>
  );
}
