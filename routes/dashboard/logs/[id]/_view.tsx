// One inference request as logged: what was asked and answered (sizes and settings, never the text),
// what each guardrail stage decided and found, how long it took, who served it and what it cost.
import type { DeploymentLabel, InferenceLogView, ServingReplica } from "#services/inference-logs/logs.ts";
import { Layout } from "../../_shared/layout.tsx";
import type { PageInfo } from "../../_shared/page.ts";
import { type LoggedGuardrails, loggedDecision, retrievalSummary } from "../../_shared/parts/decisions.ts";
import { Badge, Figure, PageHeader } from "../../_shared/parts/list.tsx";
import { ms } from "../../_shared/parts/usage.tsx";
import { costText, time } from "../_view.tsx";

export interface InferenceLogEntryProps {
  page: PageInfo;
  entry: InferenceLogView;
  deployments: Record<string, DeploymentLabel>;
  /** The replica at the logged URL, when the served deployment still has it. */
  replica: ServingReplica | null;
}

/**
 * The replica that answered: its number as the deployment's replica list shows it, and its base URL;
 * the URL alone once that replica was scaled away or restarted elsewhere.
 */
function ReplicaName({ endpoint, replica }: { endpoint: string | null; replica: ServingReplica | null }) {
  if (!endpoint) return <span class="muted">not logged</span>;
  return (
    <>
      {replica ? (
        <span safe>{`replica #${replica.index} at `}</span>
      ) : (
        <span class="muted">a replica no longer there, at </span>
      )}
      <span class="mono" safe>
        {endpoint}
      </span>
    </>
  );
}

/** A deployment by its name ("(deleted)" after it when it was), linked while it exists. */
function DeploymentName({
  id,
  labels,
  fallback,
}: {
  id: string;
  labels: Record<string, DeploymentLabel>;
  fallback: string;
}) {
  const label = labels[id];
  if (!label) return <span safe>{`${fallback} (deleted)`}</span>;
  if (label.deleted) return <span safe>{`${label.name} (deleted)`}</span>;
  return (
    <a href={`/deployments/${id}`} safe>
      {label.name}
    </a>
  );
}

/** The guardrail stages that ran, in the order they run, each with its decision and findings. */
const stages = ["input", "classifier", "output"] as const;

function Guardrails({ guardrails }: { guardrails: LoggedGuardrails }) {
  const ran = stages.flatMap((stage) => {
    const decision = loggedDecision(guardrails[stage]);
    return decision ? [{ stage, decision }] : [];
  });
  if (ran.length === 0) return <p class="muted">No guardrail ran on this request.</p>;
  return (
    <table data-guardrails>
      <caption class="visually-hidden">Guardrail decisions and findings</caption>
      <thead>
        <tr>
          <th scope="col">Stage</th>
          <th scope="col">Decision</th>
          <th scope="col">Findings</th>
        </tr>
      </thead>
      <tbody>
        {ran.map(({ stage, decision: d }) => {
          const findings = (d.findings ?? []).map((f) => [f.scanner, f.type].filter(Boolean).join(" "));
          const categories = d.categories ?? [];
          return (
            <tr data-stage={stage}>
              <th scope="row">{stage}</th>
              <td>
                <Badge state={d.action ?? "—"} still />
                {d.error ? (
                  <span class="muted" safe>
                    {` could not check: ${d.error}`}
                  </span>
                ) : null}
              </td>
              <td>
                {findings.length + categories.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  <ul class="findings">
                    {[...findings, ...categories].map((f) => (
                      <li safe>{f}</li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Who asked for what, who served it and how it ended. */
function RequestFacts({
  entry: e,
  deployments,
  replica,
}: Pick<InferenceLogEntryProps, "entry" | "deployments" | "replica">) {
  const fallbackServed = e.served_by_deployment_id !== null && e.served_by_deployment_id !== e.deployment_id;
  return (
    <section class="card" aria-labelledby="entry-request">
      <h2 id="entry-request">Request</h2>
      <dl class="facts" data-entry>
        <dt>Time (UTC)</dt>
        <dd safe>{time(e.created_at)}</dd>
        <dt>Request id</dt>
        <dd class="mono" safe>
          {e.request_id}
        </dd>
        <dt>Model asked for</dt>
        <dd safe>{e.model}</dd>
        <dt>Deployment</dt>
        <dd>
          {e.deployment_id ? (
            <DeploymentName id={e.deployment_id} labels={deployments} fallback={e.model} />
          ) : (
            <span class="muted">none (refused before a deployment was chosen)</span>
          )}
        </dd>
        <dt>Served by</dt>
        <dd data-served-by>
          {e.served_by_deployment_id ? (
            <>
              <DeploymentName
                id={e.served_by_deployment_id}
                labels={deployments}
                fallback={e.served_by ?? e.served_by_deployment_id}
              />
              {fallbackServed ? <span class="muted"> (a fallback of the routing policy)</span> : null}
            </>
          ) : (
            <span class="muted">no deployment answered</span>
          )}
        </dd>
        {e.served_by_deployment_id ? (
          <>
            <dt>Replica</dt>
            <dd data-replica>
              <ReplicaName endpoint={e.served_by_endpoint} replica={replica} />
            </dd>
          </>
        ) : null}
        <dt>API key</dt>
        <dd class="mono" safe>
          {e.key_prefix ?? "—"}
        </dd>
        <dt>Status</dt>
        <dd>
          <Badge state={String(e.status)} still />
          {e.error_code ? (
            <span class="muted" safe>
              {` ${e.error_code}`}
            </span>
          ) : null}
        </dd>
        <dt>Streamed</dt>
        <dd>{e.stream ? "yes" : "no"}</dd>
      </dl>
    </section>
  );
}

/** Tokens, timings and cost. */
function UsageFacts({ entry: e }: Pick<InferenceLogEntryProps, "entry">) {
  return (
    <section class="card" aria-labelledby="entry-usage">
      <h2 id="entry-usage">Tokens, timings and cost</h2>
      <dl class="facts">
        <Figure label="Prompt tokens" name="prompt_tokens" value={String(e.prompt_tokens)} />
        <Figure label="Of which cached" name="cached_tokens" value={String(e.cached_tokens)} />
        <Figure label="Answer tokens" name="completion_tokens" value={String(e.completion_tokens)} />
        <Figure
          label="First token after"
          name="ttft"
          value={e.ttft_ms === null ? "— (no token was produced)" : ms(e.ttft_ms)}
        />
        <Figure label="Whole request" name="latency" value={ms(e.latency_ms)} />
        <dt>Cost</dt>
        <dd data-figure="cost">
          {e.cost > 0 ? `${costText(e.cost)} (in the deployment's price currency)` : "— (unpriced)"}
        </dd>
      </dl>
    </section>
  );
}

export function InferenceLogEntryPage({ page, entry: e, deployments, replica }: InferenceLogEntryProps) {
  return (
    <Layout title="Inference request" page={page}>
      <PageHeader title="Inference request">
        <a href="/logs">All inference logs</a>
      </PageHeader>
      <RequestFacts entry={e} deployments={deployments} replica={replica} />
      <UsageFacts entry={e} />
      <section class="card" aria-labelledby="entry-guardrails">
        <h2 id="entry-guardrails">Guardrails</h2>
        <p class="muted">Only scanners, types and actions are logged, never the text a finding points at.</p>
        <Guardrails guardrails={e.guardrails} />
        {e.retrieval ? (
          <>
            <h3>Retrieval</h3>
            <p safe>{retrievalSummary(e.retrieval)}</p>
          </>
        ) : null}
      </section>
    </Layout>
  );
}
