import { deploymentStates, engineIds } from "../../../db/schema/deployments.ts";
import { poolAcceptsDeployments } from "../../../services/orchestration/pools.ts";
import { deploymentActions } from "../../../services/orchestration/state-machine.ts";
import type { DeploymentView, ModelView, PoolView } from "../../../services/orchestration/views.ts";
import type { FieldErrors, FormValues } from "../_shared/form.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormProblem, type FormState, Select, TextArea } from "../_shared/parts/form.tsx";
import { ActionButton, Ago, Badge, EmptyState, PageHeader, Pager, Table } from "../_shared/parts/list.tsx";
import { configurationFields, type DeploymentFilters } from "./_form.ts";

const busyStates = new Set(["DEPLOYING", "STOPPING"]);
const money = (n: number | null) => (n === null ? "—" : `$${n.toFixed(2)}/h`);
const tokenPrices = (d: DeploymentView) =>
  d.input_price_per_million === null && d.output_price_per_million === null
    ? "not set"
    : `${d.input_price_per_million ?? 0} in, ${d.output_price_per_million ?? 0} out, per million tokens`;
const readyOf = (d: DeploymentView) => d.observed_replicas.filter((r) => r.state === "READY").length;

export const filtersQuery = (f: DeploymentFilters, page = f.page) =>
  new URLSearchParams({
    ...(f.status ? { status: f.status } : {}),
    ...(f.name ? { name: f.name } : {}),
    ...(page > 1 ? { page: String(page) } : {}),
  }).toString();

/** The table's rows; polled every 2 s while one of them is busy (its badge moves without a reload). */
export function DeploymentRows({
  deployments,
  filters,
}: {
  deployments: DeploymentView[];
  filters: DeploymentFilters;
}) {
  const busy = deployments.some((d) => busyStates.has(d.status));
  const query = filtersQuery(filters);
  return (
    <tbody
      id="deployment-rows"
      hx-get={`/deployments/rows${query ? `?${query}` : ""}`}
      hx-trigger={busy ? "every 2s" : "every 10s"}
      hx-swap="outerHTML"
    >
      {deployments.map((d) => (
        <tr>
          <td>
            <a href={`/deployments/${d.deployment_id}`} safe>
              {d.model_name}
            </a>
          </td>
          <td safe>{d.engine}</td>
          <td safe>{d.pool_name ?? d.pool_id}</td>
          <td class="num" safe>
            {`${readyOf(d)} / ${d.replicas}`}
          </td>
          <td class="num" safe>
            {money(d.estimated_cost_per_hour)}
          </td>
          <td>
            <Badge state={d.status} />
          </td>
          <td>
            <Ago at={d.created_at} />
          </td>
        </tr>
      ))}
    </tbody>
  );
}

export interface DeploymentsPageProps {
  page: PageInfo;
  deployments: DeploymentView[];
  total: number;
  pageSize: number;
  filters: DeploymentFilters;
  pools: PoolView[];
  models: ModelView[];
  form?: FormState;
}

export function DeploymentsPage(props: DeploymentsPageProps) {
  const { page, deployments, total, pageSize, filters, form = {} } = props;
  const filtered = Boolean(filters.status || filters.name);
  const last = Math.max(1, Math.ceil(total / pageSize));
  return (
    <Layout title="Deployments" page={page}>
      <PageHeader title="Deployments" />
      <form method="get" action="/deployments" class="filters" aria-label="Filter deployments">
        <Select
          name="status"
          label="State"
          blank="any"
          values={{ ...filters }}
          choices={deploymentStates.map((s) => ({ value: s, label: s }))}
        />
        <Field name="name" label="Name contains" values={{ ...filters }} />
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {deployments.length === 0 ? (
        filtered ? (
          <EmptyState title="No deployment matches these filters" />
        ) : (
          <EmptyState title="No deployments yet">
            <p>
              Create a <a href="/pools">pool</a>, register a <a href="/models">model</a>, then deploy it
              below.
            </p>
          </EmptyState>
        )
      ) : (
        <>
          <Table label="Deployments">
            <thead>
              <tr>
                <th>Name (the model clients send)</th>
                <th>Engine</th>
                <th>Pool</th>
                <th class="num">Replicas ready</th>
                <th class="num">Est. cost</th>
                <th>State</th>
                <th>Created</th>
              </tr>
            </thead>
            <DeploymentRows deployments={deployments} filters={filters} />
          </Table>
          <p class="muted" safe>
            {`${total} deployment${total === 1 ? "" : "s"}; page ${filters.page} of ${last}`}
          </p>
          <Pager
            prev={filters.page > 1 ? `/deployments?${filtersQuery(filters, filters.page - 1)}` : undefined}
            next={filters.page < last ? `/deployments?${filtersQuery(filters, filters.page + 1)}` : undefined}
          />
        </>
      )}
      {can(page, "deployments:write") ? <DeployForm {...props} form={form} /> : null}
    </Layout>
  );
}

function DeployForm({ page, pools, models, form }: DeploymentsPageProps & { form: FormState }) {
  const values = { workload_type: "inference", engine: "llama.cpp", replicas: "1", ...form.values };
  const usable = pools.filter((p) => poolAcceptsDeployments(p.state));
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
          <Select
            name="workload_type"
            label="Job type"
            values={values}
            errors={form.errors}
            choices={[{ value: "inference", label: "Inference" }]}
          />
          <Select
            name="engine"
            label="Engine"
            values={values}
            errors={form.errors}
            choices={engineIds.map((e) => ({ value: e, label: e }))}
          />
          <div>
            <Field
              name="model_name"
              label="Deployment name"
              required
              values={values}
              errors={form.errors}
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
            values={values}
            errors={form.errors}
            choices={usable.map((p) => ({
              value: p.pool_id,
              label: `${p.pool_name} (${p.provider}, ${p.state})`,
            }))}
          />
          <Select
            name="registry_model"
            label="Model from the registry"
            blank="none: use the path or URL below"
            values={values}
            errors={form.errors}
            choices={models.map((m) => ({
              value: `registry://${m.model_name}/${m.model_version}`,
              label: `${m.model_name} ${m.model_version} (${m.backend})`,
            }))}
          />
          <Field
            name="inference_model"
            label="…or a model path or URL"
            values={values}
            errors={form.errors}
            placeholder="/srv/models/model.gguf, https://…, or a hub id"
          />
          <Field name="replicas" label="Replicas" type="number" values={values} errors={form.errors} />
          <Field
            name="gpu_per_replica"
            label="GPUs per replica"
            type="number"
            values={values}
            errors={form.errors}
            placeholder="0"
          />
          <Field
            name="input_price_per_million"
            label="Price per million input tokens (optional)"
            inputmode="decimal"
            values={values}
            errors={form.errors}
            placeholder="0.15"
            hint="In the currency you bill in: each call's cost in its log, spend and budgets."
          />
          <Field
            name="output_price_per_million"
            label="Price per million output tokens (optional)"
            inputmode="decimal"
            values={values}
            errors={form.errors}
            placeholder="0.60"
          />
          <Field
            name="image"
            label="Container image (optional)"
            values={values}
            errors={form.errors}
            hint="Blank: the engine's documented image (the local provider runs the engine's worker)."
          />
        </div>
        <EngineSettings values={values} errors={form.errors} />
        <button type="submit">Deploy</button>
      </form>
    </section>
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
    hint: "One URL a line: OpenAI-compatible servers that already run (vLLM, Ollama, …).",
    placeholder: "http://gpu-box:8000/v1",
  },
  api_key: { label: "API key of the endpoints", hint: "Sent as Bearer; stored, never shown again." },
};

const settingGroups: { engines: string; title: string; fields: Record<string, string> }[] = [
  { engines: "llama.cpp", title: "llama.cpp settings", fields: configurationFields["llama.cpp"] },
  { engines: "vllm sglang tgi", title: "Container engine settings", fields: configurationFields.container },
  {
    engines: "openai-compatible",
    title: "Endpoints that already run",
    fields: configurationFields["openai-compatible"],
  },
];

/**
 * The engine's configuration: a group of fields per engine (the page's CSS shows the chosen engine's
 * group only) and the raw JSON for anything else.
 */
function EngineSettings({ values, errors }: { values: FormValues; errors?: FieldErrors | undefined }) {
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
                  values={values}
                  errors={errors}
                />
              ) : (
                <Field
                  name={name}
                  label={text.label}
                  hint={text.hint}
                  placeholder={text.placeholder}
                  type={kind === "number" ? "number" : kind === "secret" ? "password" : "text"}
                  values={values}
                  errors={errors}
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
        values={values}
        errors={errors}
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

/** The parts of a deployment's page that move: state, actions, replicas, transitions. Polled. */
export function DeploymentLive({ page, d }: { page: PageInfo; d: DeploymentView }) {
  const busy = busyStates.has(d.status);
  const writable = can(page, "deployments:write");
  const actions = deploymentActions(d.status);
  return (
    <div
      id="deployment-live"
      hx-get={`/deployments/${d.deployment_id}/live`}
      hx-trigger={busy ? "every 1s" : "every 5s"}
      hx-swap="outerHTML"
    >
      <section class="card">
        <div class="page-header">
          <div>
            <Badge state={d.status} />
            {busy ? (
              <span class="muted">
                {d.status === "DEPLOYING" ? " starting its replicas…" : " stopping its replicas…"}
              </span>
            ) : null}
          </div>
          {writable ? (
            <div class="actions">
              {actions.includes("start") ? (
                <ActionButton
                  action={`/deployments/${d.deployment_id}/start`}
                  label="Start"
                  csrf={page.csrf}
                />
              ) : null}
              {actions.includes("terminate") ? (
                <ActionButton
                  action={`/deployments/${d.deployment_id}/terminate`}
                  label="Terminate"
                  tone="danger"
                  csrf={page.csrf}
                  confirm={`Terminate ${d.model_name}? Its replicas stop and it stops answering.`}
                />
              ) : null}
              {actions.includes("delete") ? (
                <ActionButton
                  action={`/deployments/${d.deployment_id}/delete`}
                  label="Delete"
                  tone="danger"
                  csrf={page.csrf}
                  confirm={`Delete ${d.model_name} for good?`}
                />
              ) : null}
            </div>
          ) : null}
        </div>
        {d.failure_reason ? (
          <p class="error" safe>
            {d.failure_reason}
          </p>
        ) : null}
        <dl class="facts">
          <dt>Name (the `model` clients send)</dt>
          <dd class="mono" safe>
            {d.model_name}
          </dd>
          <dt>Engine</dt>
          <dd safe>{d.engine}</dd>
          <dt>Model source</dt>
          <dd class="mono" safe>
            {d.inference_model ?? "—"}
          </dd>
          <dt>Pool</dt>
          <dd>
            <a href={`/pools/${d.pool_id}`} safe>
              {d.pool_name ?? d.pool_id}
            </a>{" "}
            <span class="muted" safe>
              {d.provider ?? ""}
            </span>
          </dd>
          <dt>Replicas</dt>
          <dd safe>
            {d.scaled_to_zero
              ? "Scaled to zero by its autoscaling policy: the next request starts a replica and waits for it"
              : `${readyOf(d)} ready of ${d.replicas} wanted, ${d.gpu_per_replica} GPU each`}
          </dd>
          <dt>Estimated cost</dt>
          <dd safe>{money(d.estimated_cost_per_hour)}</dd>
          <dt>Token prices</dt>
          <dd safe>{tokenPrices(d)}</dd>
        </dl>
      </section>
      <h2>Replicas</h2>
      {d.observed_replicas.length === 0 ? (
        <p class="muted">No replica yet.</p>
      ) : (
        <Table label="Replicas">
          <thead>
            <tr>
              <th class="num">#</th>
              <th>State</th>
              <th>Endpoint</th>
              <th>Instance</th>
              <th class="num">Restarts</th>
            </tr>
          </thead>
          <tbody>
            {d.observed_replicas.map((r) => (
              <tr>
                <td class="num" safe>
                  {String(r.index)}
                </td>
                <td>
                  <Badge state={r.state} />
                </td>
                <td class="mono" safe>
                  {r.endpoint ?? "—"}
                </td>
                <td class="mono" safe>
                  {r.provider_instance_id ?? "—"}
                </td>
                <td class="num" safe>
                  {String(r.restarts)}
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <h2>State transitions</h2>
      <Table label="State transitions">
        <thead>
          <tr>
            <th>When</th>
            <th>From</th>
            <th>To</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {[...d.transitions].reverse().map((t) => (
            <tr>
              <td>
                <time datetime={t.at} safe>
                  {t.at.replace("T", " ").slice(0, 19)}
                </time>
              </td>
              <td>{t.from ?? "—"}</td>
              <td>
                <Badge state={t.to} still />
                {t.replicas ? (
                  <span class="muted" safe>
                    {` replicas ${t.replicas.from} → ${t.replicas.to}`}
                  </span>
                ) : null}
              </td>
              <td safe>{t.reason ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

export function DeploymentPage({ page, d }: { page: PageInfo; d: DeploymentView }) {
  return (
    <Layout title={`Deployment ${d.model_name}`} page={page}>
      <p>
        <a href="/deployments">← Deployments</a>
      </p>
      <PageHeader title={`Deployment ${d.model_name}`}>
        <a class="button secondary" href={`/deployments/${d.deployment_id}/policies`}>
          Policies
        </a>
        <a class="button secondary" href={`/playground?deployment=${encodeURIComponent(d.model_name)}`}>
          Open in playground
        </a>
      </PageHeader>
      <DeploymentLive page={page} d={d} />
      <h2>Logs</h2>
      <pre
        class="log"
        id="deployment-log"
        data-log-socket={`/deployments/${d.deployment_id}/logs-ws`}
        aria-live="off"
        tabindex="0"
      ></pre>
      <p class="muted" id="deployment-log-state" aria-live="polite">
        connecting…
      </p>
    </Layout>
  );
}
