import type { KeyUsage } from "#services/usage/key-usage.ts";
import { Layout } from "../../_shared/layout.tsx";
import type { PageInfo } from "../../_shared/page.ts";
import { Ago, Badge } from "../../_shared/parts/list.tsx";
import { DeploymentTable, money, RangeLinks, UsageCharts, UsageTotals } from "../../_shared/parts/usage.tsx";

const stateOf = (k: KeyUsage["key"], now: Date) =>
  k.revoked_at ? "REVOKED" : k.expires_at && new Date(k.expires_at) <= now ? "EXPIRED" : "ACTIVE";

/** "0.1234 of 5.00 (2.5 %)", or the spend alone when no limit is set. */
function against(spent: number, limit: number | undefined): string {
  if (limit === undefined) return `${money(spent)} (no limit)`;
  const share = limit > 0 ? ` (${((100 * spent) / limit).toFixed(1)} %)` : "";
  return `${money(spent)} of ${money(limit)}${share}`;
}

export function ApiKeyUsagePage({ page, usage }: { page: PageInfo; usage: KeyUsage }) {
  const { key, overview, spent, budget } = usage;
  const now = new Date();
  return (
    <Layout title={`API key ${key.name}`} page={page}>
      <p class="hint">
        <a href="/api-keys">← API keys</a>
      </p>
      <div class="page-header">
        <h1 safe>{`API key ${key.name}`}</h1>
        <RangeLinks range={overview.range} href={(r) => `/api-keys/${key.id}?range=${r}`} />
      </div>
      <section class="card">
        <dl class="facts">
          <dt>Prefix</dt>
          <dd class="mono" safe>
            {key.prefix}
          </dd>
          <dt>State</dt>
          <dd>
            <Badge state={stateOf(key, now)} />
          </dd>
          <dt>Last used</dt>
          <dd>
            <Ago at={key.last_used_at} now={now} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Ago at={key.created_at} now={now} />
          </dd>
          <dt>Spent today (UTC)</dt>
          <dd data-figure="spent_today" safe>
            {against(spent.today, budget?.max_spend_per_day)}
          </dd>
          <dt>Spent this month</dt>
          <dd data-figure="spent_month" safe>
            {against(spent.month, budget?.max_spend_per_month)}
          </dd>
        </dl>
        {budget ? null : (
          <p class="hint">
            No budget names this key: a <code>budget</code> policy with its <code>api_key_id</code> sets a
            maximum spend per day or month.
          </p>
        )}
      </section>
      <p class="scope">
        <strong>Requests made with this key</strong> <span class="muted">(times in UTC)</span>
      </p>
      <UsageTotals sum={overview.total.sum} label={`Totals: API key ${key.name}`} />
      <UsageCharts overview={overview} series={{ ...overview.total, name: `API key ${key.name}` }} />
      <h2>By deployment</h2>
      <DeploymentTable overview={overview} />
    </Layout>
  );
}
