import type { DeploymentView, NodeView, PoolView } from "#services/orchestration/views.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Checkboxes, Field, FormCard, type FormState, Select, TextArea } from "../_shared/parts/form.tsx";
import {
  ActionButton,
  Ago,
  Badge,
  EmptyState,
  LiveRows,
  PageHeader,
  Polled,
  SecretOnce,
  Table,
} from "../_shared/parts/list.tsx";
import type { PoolModel } from "./_model.ts";

export interface ProviderChoice {
  id: string;
  summary: string;
}

const money = (n: number | null) => (n === null ? "—" : `$${n.toFixed(2)}/h`);

/** Rows of the pools table: what the page polls while a pool provisions. */
export function PoolRows({ pools, now = new Date() }: { pools: PoolView[]; now?: Date }) {
  const busy = pools.some((p) => p.state === "Provisioning" || p.state === "Deleting");
  return (
    <LiveRows id="pool-rows" url="/pools/rows" busy={busy}>
      {pools.map((p) => (
        <tr>
          <td>
            <a href={`/pools/${p.pool_id}`} safe>
              {p.pool_name}
            </a>
          </td>
          <td safe>{p.provider}</td>
          <td safe>{String(p.allowed_gpu_types.join(", ") || "any")}</td>
          <td class="num" safe>
            {`${p.ready_node_count} / ${p.node_count}`}
          </td>
          <td class="num" safe>
            {p.max_cost_per_hour === null ? "none" : money(p.max_cost_per_hour)}
          </td>
          <td class="num" safe>
            {money(p.estimated_cost_per_hour)}
          </td>
          <td>
            <Badge state={p.state} />
            {p.failure_reason ? (
              <p class="field-error" safe>
                {p.failure_reason}
              </p>
            ) : null}
          </td>
          <td>
            <Ago at={p.created_at} now={now} />
          </td>
        </tr>
      ))}
    </LiveRows>
  );
}

export interface PoolsPageProps {
  page: PageInfo;
  pools: PoolView[];
  providers: ProviderChoice[];
  defaultProvider: string;
  form?: FormState;
  /** A pool just created: its node token, shown this once. */
  created?: (PoolView & { node_token: string }) | undefined;
}

/** The pool form's optional limits: name, label, step and what the limit does. */
const limitFields: [name: string, label: string, step: string, hint: string][] = [
  [
    "max_cost_per_hour",
    "Cost ceiling, US$ per hour (optional)",
    "0.01",
    "A replica that would cost more is refused, on providers that price.",
  ],
  [
    "size",
    "Size, replicas at most (optional)",
    "1",
    "Each replica is one node (a worker, a pod, a VM, a lease). Deploying or scaling past it is refused. Blank: no limit.",
  ],
];

export function PoolsPage({ page, pools, providers, defaultProvider, form = {}, created }: PoolsPageProps) {
  return (
    <Layout title="Pools" page={page}>
      <PageHeader title="Compute pools" />
      {created ? (
        <section class="notice" aria-live="polite">
          <p>
            <strong>
              Pool <span safe>{created.pool_name}</span> created; it turns Active below on its own.
            </strong>{" "}
            Its node token (what workers send with their heartbeats) is shown once:
          </p>
          <SecretOnce id="node-token" value={created.node_token} />
        </section>
      ) : null}
      {pools.length === 0 ? (
        <EmptyState title="No pools yet">
          <p>
            A pool is where deployments run: this machine (local), a Kubernetes cluster, cloud VMs or a GPU
            network.
          </p>
        </EmptyState>
      ) : (
        <Table label="Pools">
          <thead>
            <tr>
              <th>Name</th>
              <th>Provider</th>
              <th>GPU types</th>
              <th class="num">Nodes ready</th>
              <th class="num">Cost ceiling</th>
              <th class="num">Est. cost</th>
              <th>State</th>
              <th>Created</th>
            </tr>
          </thead>
          <PoolRows pools={pools} />
        </Table>
      )}
      {can(page, "pools:write") ? (
        <CreatePoolForm page={page} providers={providers} defaultProvider={defaultProvider} form={form} />
      ) : null}
    </Layout>
  );
}

/** The live part of a pool's page: its state and its nodes, polled. */
export function PoolLive({
  pool,
  nodes,
  now = new Date(),
}: {
  pool: PoolView;
  nodes: NodeView[];
  now?: Date;
}) {
  const busy = pool.state === "Provisioning" || pool.state === "Deleting";
  return (
    <Polled id="pool-live" url={`/pools/${pool.pool_id}/live`} every={busy ? "2s" : "5s"}>
      <dl class="facts card">
        <dt>State</dt>
        <dd>
          <Badge state={pool.state} />
          {busy ? <span class="muted"> provisioning at the provider…</span> : null}
          {pool.failure_reason ? (
            <p class="field-error" safe>
              {pool.failure_reason}
            </p>
          ) : null}
        </dd>
        <dt>Provider</dt>
        <dd safe>{pool.provider}</dd>
        <dt>GPU types</dt>
        <dd safe>{String(pool.allowed_gpu_types.join(", ") || "any")}</dd>
        <dt>Cost ceiling</dt>
        <dd safe>{pool.max_cost_per_hour === null ? "none" : money(pool.max_cost_per_hour)}</dd>
        <dt>Estimated cost</dt>
        <dd safe>{money(pool.estimated_cost_per_hour)}</dd>
        <dt>Size</dt>
        <dd safe>{pool.size === null ? "no limit" : `${pool.size} replicas at most`}</dd>
        <dt>Nodes ready</dt>
        <dd safe>{`${pool.ready_node_count} of ${pool.node_count}`}</dd>
      </dl>
      <h2>Nodes</h2>
      <p class="hint">
        A node without a heartbeat for three intervals is UNHEALTHY; a stopped replica's node is OFFLINE.
        Either leaves this list once silent for NODE_RETIRE_AFTER_S (an hour unless set) with no replica on
        it.
      </p>
      {nodes.length === 0 ? (
        <EmptyState title="No node has reported yet">
          <p>
            Nodes appear here when their workers send heartbeats (a deployment's replicas on this pool do).
          </p>
        </EmptyState>
      ) : (
        <Table label="Nodes">
          <thead>
            <tr>
              <th>Instance</th>
              <th>State</th>
              <th class="num">Health</th>
              <th class="num">GPUs</th>
              <th class="num">vCPUs</th>
              <th class="num">RAM GB</th>
              <th>Endpoint</th>
              <th>Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {nodes.map((n) => (
              <tr>
                <td class="mono" safe>
                  {n.provider_instance_id}
                </td>
                <td>
                  <Badge state={n.state} />
                </td>
                <td class="num" safe>
                  {String(n.health_score)}
                </td>
                <td class="num" safe>
                  {String(n.gpu_allocated)}
                </td>
                <td class="num" safe>
                  {String(n.vcpu_allocated)}
                </td>
                <td class="num" safe>
                  {String(n.ram_gb_allocated)}
                </td>
                <td class="mono" safe>
                  {n.expose_url ?? "—"}
                </td>
                <td>
                  <Ago at={n.last_heartbeat_at} now={now} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Polled>
  );
}

export function PoolPage({
  page,
  pool,
  nodes,
  deployments,
}: {
  page: PageInfo;
  pool: PoolModel;
  nodes: NodeView[];
  deployments: DeploymentView[];
}) {
  return (
    <Layout title={`Pool ${pool.pool_name}`} page={page}>
      <p>
        <a href="/pools">← Pools</a>
      </p>
      <PageHeader title={`Pool ${pool.pool_name}`}>
        {can(page, "pools:write") && pool.deletable ? (
          <ActionButton
            action={`/pools/${pool.pool_id}/delete`}
            label="Delete pool"
            tone="danger"
            csrf={page.csrf}
            confirm={`Delete the pool ${pool.pool_name}? Everything it holds at the provider is released.`}
          />
        ) : null}
      </PageHeader>
      <PoolLive pool={pool} nodes={nodes} />
      <h2>Deployments on this pool</h2>
      {deployments.length === 0 ? (
        <p class="muted">
          None. <a href="/deployments">Deploy a model</a> on it.
        </p>
      ) : (
        <ul>
          {deployments.map((d) => (
            <li>
              <a href={`/deployments/${d.deployment_id}`} safe>
                {d.model_name}
              </a>{" "}
              <Badge state={d.status} />
            </li>
          ))}
        </ul>
      )}
    </Layout>
  );
}

/** The new pool's form; the provider preselected is the default one. */
function CreatePoolForm({
  page,
  providers,
  defaultProvider,
  form,
}: Pick<PoolsPageProps, "page" | "providers" | "defaultProvider"> & { form: FormState }) {
  const state = { values: { provider: defaultProvider, ...form.values }, errors: form.errors };
  return (
    <FormCard title="Create a pool" action="/pools" csrf={page.csrf} errors={form.errors}>
      <div class="grid2">
        <Field
          name="pool_name"
          label="Name"
          {...state}
          hint="Letters, digits, '.', '_' and '-'; generated when left blank."
        />
        <Select
          name="provider"
          label="Provider"
          {...state}
          choices={providers.map((p) => ({ value: p.id, label: `${p.id}: ${p.summary}` }))}
        />
        <Field
          name="allowed_gpu_types"
          label="GPU types (optional)"
          {...state}
          placeholder="A100, L4"
          hint="Comma-separated; replicas are placed only on these. Blank: any (or none for CPU)."
        />
        {limitFields.map(([name, label, step, hint]) => (
          <Field name={name} label={label} type="number" {...state} attrs={{ step }} hint={hint} />
        ))}
        <Select
          name="owner_type"
          label="Owner"
          {...state}
          choices={[
            { value: "org", label: "this organization" },
            { value: "user", label: "me only" },
          ]}
        />
        <Field
          name="provider_pool_id"
          label="Provider's own pool id (optional)"
          {...state}
          hint="An existing cluster, namespace, market or service at the provider to use as this pool."
        />
        <Checkboxes
          name="is_dedicated"
          label="Dedicated"
          {...state}
          choices={[{ value: "true", label: "Only this pool's deployments run on its nodes" }]}
        />
        <TextArea
          name="scheduling_policy_json"
          label="Scheduling policy (JSON, optional)"
          {...state}
          rows={2}
          hint='Passed to the provider as it is, e.g. {"spread": "zone"}.'
        />
      </div>
      <p class="hint" safe>
        {`Without a choice the provider is ${defaultProvider}: nosana once its credentials are configured (Providers page), otherwise local, worker processes on this machine. A pool holds no idle machines: each replica of its deployments is a node, started when wanted, up to its size.`}
      </p>
      <button type="submit">Create pool</button>
    </FormCard>
  );
}
