import type { UsageOverview, UsageRange } from "#services/usage/overview.ts";
import { Layout } from "./_shared/layout.tsx";
import { sections } from "./_shared/nav.ts";
import type { PageInfo } from "./_shared/page.ts";
import { EmptyState } from "./_shared/parts/list.tsx";
import { DeploymentTable, RangeLinks, UsageCharts, UsageTotals } from "./_shared/parts/usage.tsx";

/** The typical workflow as a checklist of links, for the sections this role may see. */
const steps: { href: string; text: string }[] = [
  { href: "/pools", text: "Create a compute pool and wait for it to turn Active." },
  { href: "/models", text: "Register a model version (a GGUF path, a URL or a hub id)." },
  { href: "/deployments", text: "Deploy it on the pool and watch it turn RUNNING." },
  { href: "/api-keys", text: "Create an API key for your application." },
  { href: "/playground", text: "Chat with the deployment, or call /v1/chat/completions with the key." },
];

export interface HomePageProps {
  page: PageInfo;
  /** The organization's traffic, for a role that may read the inference logs. */
  usage?: { overview: UsageOverview; deploymentId?: string | undefined } | undefined;
}

/** `/?range=…&deployment=…`: the overview's own links keep both. */
export const overviewHref = (range: UsageRange, deploymentId?: string | null) =>
  `/?range=${range}${deploymentId ? `&deployment=${deploymentId}` : ""}`;

export function HomePage({ page, usage }: HomePageProps) {
  const visible = new Set(
    sections.filter((s) => page.actor.permissions.has(s.permission)).map((s) => s.href),
  );
  const checklist = (
    <>
      <h2>From pool to tokens</h2>
      <ol>
        {steps
          .filter((s) => visible.has(s.href))
          .map((s) => (
            <li>
              <a href={s.href} safe>
                {s.text}
              </a>
            </li>
          ))}
      </ol>
    </>
  );
  if (!usage) {
    return (
      <Layout title="Overview" page={page}>
        <h1>Overview</h1>
        <section class="card">
          <p>
            Signed in as <strong safe>{page.actor.email}</strong> with the role{" "}
            <strong safe>{page.actor.role}</strong>.
          </p>
          {checklist}
        </section>
      </Layout>
    );
  }
  const { overview, deploymentId } = usage;
  const scope =
    (deploymentId && overview.deployments.find((s) => s.deploymentId === deploymentId)) || overview.total;
  return (
    <Layout title="Overview" page={page}>
      <div class="page-header">
        <h1>Overview</h1>
        <RangeLinks range={overview.range} href={(r) => overviewHref(r, deploymentId)} />
      </div>
      <p class="scope">
        {scope === overview.total ? (
          <>
            <strong>All deployments</strong>
            {overview.deployments.length > 0 ? (
              <span class="muted"> · pick one in the table for its own charts</span>
            ) : null}
          </>
        ) : (
          <>
            Deployment <strong safe>{scope.name}</strong> ·{" "}
            <a href={overviewHref(overview.range)}>All deployments</a>
          </>
        )}{" "}
        <span class="muted">(times in UTC)</span>
      </p>
      {overview.total.sum.requests === 0 ? (
        <EmptyState title="No inference requests in this range">
          <p>Requests to the inference gateway show here within seconds of being made.</p>
          <div class="checklist">{checklist}</div>
        </EmptyState>
      ) : null}
      <UsageTotals sum={scope.sum} label={`Totals: ${scope.name}`} />
      <UsageCharts overview={overview} series={scope} />
      <h2>By deployment</h2>
      <DeploymentTable
        overview={overview}
        current={deploymentId}
        href={(s) => overviewHref(overview.range, s.deploymentId)}
      />
    </Layout>
  );
}
