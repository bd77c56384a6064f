import type { AuditRecord } from "#services/audit/query.ts";
import type { InferenceLogView } from "#services/inference-logs/logs.ts";
import { Layout } from "../_shared/layout.tsx";
import type { PageInfo } from "../_shared/page.ts";
import { guardrailSummary, retrievalSummary } from "../_shared/parts/decisions.ts";
import { Alert, Field, FilterForm, Select } from "../_shared/parts/form.tsx";
import { Badge, EmptyState, PageHeader, Pager, Table } from "../_shared/parts/list.tsx";

export const time = (iso: string) => iso.replace("T", " ").slice(0, 19);
/** In the deployment's price currency; six decimals show a call priced per million tokens. */
export const costText = (cost: number) => (cost > 0 ? String(Number(cost.toFixed(6))) : "—");
const linkWith = (base: string, filters: Record<string, string | undefined>, cursor: string) =>
  `${base}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v)), cursor })}`;

export interface InferenceLogsProps {
  page: PageInfo;
  items: InferenceLogView[];
  nextCursor: string | null;
  filters: { deployment?: string | undefined; outcome?: string | undefined };
  deployments: { id: string; name: string }[];
}

export function InferenceLogsPage({ page, items, nextCursor, filters, deployments }: InferenceLogsProps) {
  const names = new Map(deployments.map((d) => [d.id, d.name]));
  return (
    <Layout title="Inference logs" page={page}>
      <PageHeader title="Inference logs" />
      <FilterForm action="/logs" label="Filter the inference logs">
        <Select
          name="deployment"
          label="Deployment"
          blank="all"
          values={{ ...filters }}
          choices={deployments.map((d) => ({ value: d.id, label: d.name }))}
        />
        <Select
          name="outcome"
          label="Status"
          blank="all"
          values={{ ...filters }}
          choices={[
            { value: "ok", label: "answered (below 400)" },
            { value: "error", label: "refused or failed" },
          ]}
        />
      </FilterForm>
      {items.length === 0 ? (
        <EmptyState title="No inference requests here yet">
          <p>
            Requests to <code>/v1/chat/completions</code> (and the playground's) appear here within a second
            or two.
          </p>
        </EmptyState>
      ) : (
        <Table label="Inference logs">
          <thead>
            <tr>
              <th>Time (UTC)</th>
              <th>Deployment</th>
              <th>Key</th>
              <th class="num">Status</th>
              <th class="num">Tokens in / out</th>
              <th class="num">Latency</th>
              <th class="num">Cost</th>
              <th>Guardrails and retrieval</th>
            </tr>
          </thead>
          <tbody>
            {items.map((l) => (
              <tr>
                <td class="when">
                  <a href={`/logs/${l.id}`} aria-label={`Request at ${time(l.created_at)}: details`} safe>
                    {time(l.created_at)}
                  </a>
                </td>
                <td>
                  <span safe>{(l.deployment_id && names.get(l.deployment_id)) || l.model}</span>
                  {l.served_by && l.served_by_deployment_id !== l.deployment_id ? (
                    <div class="muted served-by" safe>
                      {`served by ${l.served_by}`}
                    </div>
                  ) : null}
                </td>
                <td class="mono" safe>
                  {l.key_prefix ?? "—"}
                </td>
                <td class="num">
                  <Badge state={String(l.status)} still />
                  {l.error_code ? (
                    <span class="muted" safe>
                      {` ${l.error_code}`}
                    </span>
                  ) : null}
                </td>
                <td class="num" safe>
                  {`${l.prompt_tokens} / ${l.completion_tokens}`}
                </td>
                <td class="num" safe>
                  {`${Math.round(l.latency_ms)} ms${l.stream ? " (stream)" : ""}`}
                </td>
                <td class="num" safe>
                  {costText(l.cost)}
                </td>
                <td class="notes">
                  <div safe>{guardrailSummary(l.guardrails)}</div>
                  <div class="muted" safe>
                    {retrievalSummary(l.retrieval)}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager next={nextCursor ? linkWith("/logs", filters, nextCursor) : undefined} />
    </Layout>
  );
}

/** A UUID's first block is enough to tell records apart in a row; the whole id is its title. */
const shortId = (id: string | null) =>
  id === null ? "" : /^[0-9a-f]{8}-[0-9a-f-]{27}$/i.test(id) ? `${id.slice(0, 8)}…` : id;

/**
 * A record's details, folded: the summary names the fields, opening it shows the JSON laid out, so a
 * long record neither widens the table nor is cut off.
 */
function AuditDetails({ details }: Pick<AuditRecord, "details">) {
  const fields = Object.keys(details);
  if (fields.length === 0) return <span class="muted">—</span>;
  return (
    <details class="audit-details">
      <summary safe>{fields.length > 3 ? `${fields.slice(0, 3).join(", ")}, …` : fields.join(", ")}</summary>
      <pre class="mono" safe>
        {JSON.stringify(details, null, 2)}
      </pre>
    </details>
  );
}

export interface AuditProps {
  page: PageInfo;
  items: AuditRecord[];
  nextCursor: string | null;
  filters: {
    action?: string | undefined;
    actor?: string | undefined;
    outcome?: string | undefined;
    from?: string | undefined;
  };
  error?: string | undefined;
}

export function AuditPage({ page, items, nextCursor, filters, error }: AuditProps) {
  return (
    <Layout title="Audit log" page={page}>
      <PageHeader title="Audit log" />
      <FilterForm action="/audit" label="Filter the audit log">
        <Field name="action" label="Action" placeholder="auth.* or api_key.create" values={{ ...filters }} />
        <Field name="actor" label="Actor (e-mail, key prefix or user id)" values={{ ...filters }} />
        <Select
          name="outcome"
          label="Outcome"
          blank="any"
          values={{ ...filters }}
          choices={[
            { value: "success", label: "success" },
            { value: "failure", label: "failure" },
          ]}
        />
        <Field name="from" label="From (UTC)" type="date" values={{ ...filters }} />
      </FilterForm>
      <Alert message={error} />
      {items.length === 0 ? (
        <EmptyState title="Nothing in the audit log matches" />
      ) : (
        <Table label="Audit log">
          <thead>
            <tr>
              <th>Time (UTC)</th>
              <th>Actor</th>
              <th>Action</th>
              <th>Target</th>
              <th>Outcome</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {items.map((a) => (
              <tr>
                <td class="when" safe>
                  {time(a.created_at)}
                </td>
                <td class="wrap" safe>
                  {a.actor_label ?? a.actor_id ?? "—"}
                </td>
                <td class="mono wrap" safe>
                  {a.action}
                </td>
                <td class="mono wrap">
                  {a.target_type ? (
                    <>
                      <span safe>{a.target_type}</span>{" "}
                      <span class="muted" title={a.target_id ?? undefined} safe>
                        {shortId(a.target_id)}
                      </span>
                    </>
                  ) : (
                    "—"
                  )}
                </td>
                <td>
                  <Badge state={a.outcome} still />
                </td>
                <td>
                  <AuditDetails details={a.details} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager next={nextCursor ? linkWith("/audit", filters, nextCursor) : undefined} />
    </Layout>
  );
}
