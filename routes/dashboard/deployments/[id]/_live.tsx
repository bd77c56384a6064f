// The parts of a deployment's page that move, polled: its state and the actions the state machine
// allows now (carried by the model), its facts, replicas and state transitions.
import type { DeploymentAction } from "#services/orchestration/state-machine.ts";
import type { DeploymentView } from "#services/orchestration/views.ts";
import { can, type PageInfo } from "../../_shared/page.ts";
import { ActionButton, Badge, Polled, Table } from "../../_shared/parts/list.tsx";
import { busyStates, type DeploymentModel, money, readyOf } from "../_model.ts";

const tokenPrices = (d: DeploymentView) =>
  d.input_price_per_million === null && d.output_price_per_million === null
    ? "not set"
    : `${d.input_price_per_million ?? 0} in, ${d.output_price_per_million ?? 0} out, per million tokens`;

/** Each action's button: its label, tone and the question asked before it. */
const buttons: Record<
  DeploymentAction,
  (d: DeploymentView) => { label: string; tone?: "danger"; confirm?: string }
> = {
  start: () => ({ label: "Start" }),
  terminate: (d) => ({
    label: "Terminate",
    tone: "danger",
    confirm: `Terminate ${d.model_name}? Its replicas stop and it stops answering.`,
  }),
  delete: (d) => ({ label: "Delete", tone: "danger", confirm: `Delete ${d.model_name} for good?` }),
};

export function DeploymentLive({ page, d }: { page: PageInfo; d: DeploymentModel }) {
  const busy = busyStates.has(d.status);
  return (
    <Polled id="deployment-live" url={`/deployments/${d.deployment_id}/live`} every={busy ? "1s" : "5s"}>
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
          {can(page, "deployments:write") ? (
            <div class="actions">
              {d.actions.map((action) => (
                <ActionButton
                  action={`/deployments/${d.deployment_id}/${action}`}
                  csrf={page.csrf}
                  {...buttons[action](d)}
                />
              ))}
            </div>
          ) : null}
        </div>
        {d.failure_reason ? (
          <p class="error" safe>
            {d.failure_reason}
          </p>
        ) : null}
        <DeploymentFacts d={d} />
      </section>
      <h2>Replicas</h2>
      <Replicas d={d} />
      <h2>State transitions</h2>
      <Transitions d={d} />
    </Polled>
  );
}

function DeploymentFacts({ d }: { d: DeploymentView }) {
  return (
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
  );
}

function Replicas({ d }: { d: DeploymentView }) {
  return d.observed_replicas.length === 0 ? (
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
  );
}

function Transitions({ d }: { d: DeploymentView }) {
  return (
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
  );
}
