import { deploymentStates } from "#core/domain.ts";
import type { DeploymentView, ModelView } from "#services/orchestration/views.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Field, FilterForm, type FormState, Select } from "../_shared/parts/form.tsx";
import { Ago, Badge, EmptyState, LiveRows, PageHeader, Pager, Table } from "../_shared/parts/list.tsx";
import { DeployForm } from "./_deploy-form.tsx";
import { type DeploymentFilters, filtersQuery } from "./_form.ts";
import { busyStates, type DeployPool, money, readyOf } from "./_model.ts";

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
    <LiveRows id="deployment-rows" url={`/deployments/rows${query ? `?${query}` : ""}`} busy={busy}>
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
    </LiveRows>
  );
}

export interface DeploymentsPageProps {
  page: PageInfo;
  deployments: DeploymentView[];
  total: number;
  pageSize: number;
  filters: DeploymentFilters;
  pools: DeployPool[];
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
      <FilterForm action="/deployments" label="Filter deployments">
        <Select
          name="status"
          label="State"
          blank="any"
          values={{ ...filters }}
          choices={deploymentStates.map((s) => ({ value: s, label: s }))}
        />
        <Field name="name" label="Name contains" values={{ ...filters }} />
      </FilterForm>
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
      {can(page, "deployments:write") ? (
        <DeployForm page={page} pools={props.pools} models={props.models} form={form} />
      ) : null}
    </Layout>
  );
}
