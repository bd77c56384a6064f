// The usage figures the overview and an API key's page share: the range's totals, five charts of one
// scope (every deployment, or one) and a table per deployment that is also the charts' figures as text.
import { quantileMs } from "#services/usage/histogram.ts";
import {
  type UsageOverview,
  type UsagePoint,
  type UsageRange,
  type UsageSeries,
  usageRangeNames,
  usageRanges,
} from "#services/usage/overview.ts";
import { LineChart } from "./chart.tsx";
import { Figure } from "./list.tsx";

const whole = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const compactFormat = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

export const count = (n: number) => whole.format(n);
export const compact = (n: number) => compactFormat.format(n);
export const ms = (n: number | null) =>
  n === null ? "–" : n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
/** Spend, in the currency of the deployments' prices. */
export const money = (n: number) => (n === 0 ? "0" : n < 1 ? n.toFixed(4) : n.toFixed(2));
/** Axis labels: short, trailing zeros dropped. */
const short = (n: number) => String(Number(n.toPrecision(3)));
const msAxis = (n: number) => (n === 0 ? "0" : n < 1000 ? `${short(n)} ms` : `${short(n / 1000)} s`);
const moneyAxis = (n: number) => short(n);
const percent = (part: number, all: number) => (all === 0 ? "0 %" : `${((100 * part) / all).toFixed(1)} %`);

const pad = (n: number) => String(n).padStart(2, "0");
/** Times in UTC: the clock of the logs, whatever the browser's zone. */
export function timeLabelFor(range: UsageRange): (t: Date) => string {
  const hm = (t: Date) => `${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}`;
  const md = (t: Date) => `${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  return range === "hour" || range === "day" ? hm : range === "week" ? (t) => `${md(t)} ${hm(t)}` : md;
}

const errorsOf = (p: UsagePoint) => p.errors4xx + p.errors5xx;

/** Links to the four ranges; `href` keeps the page's other parameters. */
export function RangeLinks({ range, href }: { range: UsageRange; href: (r: UsageRange) => string }) {
  return (
    <nav aria-label="Time range" class="ranges">
      <ul>
        {usageRangeNames.map((r) => (
          <li>
            <a href={href(r)} aria-current={r === range ? "page" : undefined}>
              {usageRanges[r].label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function UsageTotals({ sum, label }: { sum: UsagePoint; label: string }) {
  return (
    <section class="card" aria-label={label}>
      <dl class="stats" data-totals>
        <div>
          <Figure label="Requests" name="requests" value={count(sum.requests)} />
        </div>
        <div>
          <dt>Errors</dt>
          <dd>
            <span data-figure="errors" safe>
              {count(errorsOf(sum))}
            </span>{" "}
            <span class="muted" safe>
              ({percent(errorsOf(sum), sum.requests)})
            </span>
          </dd>
        </div>
        <div>
          <Figure label="Input tokens" name="input_tokens" value={count(sum.inputTokens)} />
        </div>
        <div>
          <Figure label="Output tokens" name="output_tokens" value={count(sum.outputTokens)} />
        </div>
        <div>
          <Figure
            label="Latency p50 / p95"
            value={`${ms(quantileMs(sum.latency, 0.5))} / ${ms(quantileMs(sum.latency, 0.95))}`}
          />
        </div>
        <div>
          <Figure
            label="First token p50 / p95"
            value={`${ms(quantileMs(sum.ttft, 0.5))} / ${ms(quantileMs(sum.ttft, 0.95))}`}
          />
        </div>
        <div>
          <Figure label="Spend" name="spend" value={money(sum.cost)} />
        </div>
      </dl>
    </section>
  );
}

/** The five charts of one series (a deployment, or all of them). */
export function UsageCharts({ overview, series }: { overview: UsageOverview; series: UsageSeries }) {
  const { points } = series;
  const per = bucketName(overview.bucketSeconds);
  const span = usageRanges[overview.range].label.toLowerCase();
  const timeLabel = timeLabelFor(overview.range);
  const busiest = points.reduce((best, p, i) => (p.requests > (points[best]?.requests ?? 0) ? i : best), 0);
  const busiestAt = overview.times[busiest];
  const scope = series.name;
  /** A duration's p50 and p95 per bucket (latency, time to first token), and over the whole range. */
  const quantileChart = (id: string, title: string, pick: (p: UsagePoint) => UsagePoint["latency"]) => (
    <LineChart
      id={id}
      title={title}
      summary={`${scope}, ${span}: p50 ${ms(quantileMs(pick(series.sum), 0.5))}, p95 ${ms(quantileMs(pick(series.sum), 0.95))} over the whole range.`}
      times={overview.times}
      series={[
        { label: "p50", values: points.map((point) => quantileMs(pick(point), 0.5)) },
        { label: "p95", values: points.map((point) => quantileMs(pick(point), 0.95)) },
      ]}
      format={msAxis}
      timeLabel={timeLabel}
    />
  );
  return (
    <div class="charts" data-from={overview.from.toISOString()} data-to={overview.to.toISOString()}>
      <LineChart
        id="chart-requests"
        title={`Requests and errors per ${per}`}
        summary={`${scope}, ${span}: ${count(series.sum.requests)} requests and ${count(errorsOf(series.sum))} errors; the busiest ${per} had ${count(points[busiest]?.requests ?? 0)} requests${busiestAt ? ` at ${timeLabel(busiestAt)} UTC` : ""}.`}
        times={overview.times}
        series={[
          { label: "Requests", values: points.map((x) => x.requests) },
          { label: "Errors (status 400 or more)", values: points.map(errorsOf) },
        ]}
        format={compact}
        timeLabel={timeLabel}
      />
      <LineChart
        id="chart-tokens"
        title={`Tokens per ${per}`}
        summary={`${scope}, ${span}: ${count(series.sum.inputTokens)} input and ${count(series.sum.outputTokens)} output tokens.`}
        times={overview.times}
        series={[
          { label: "Input", values: points.map((x) => x.inputTokens) },
          { label: "Output", values: points.map((x) => x.outputTokens) },
        ]}
        format={compact}
        timeLabel={timeLabel}
      />
      {quantileChart("chart-latency", "Latency, p50 and p95", (x) => x.latency)}
      {quantileChart("chart-ttft", "Time to first token, p50 and p95", (x) => x.ttft)}
      <LineChart
        id="chart-spend"
        title={`Spend per ${per}`}
        summary={`${scope}, ${span}: ${money(series.sum.cost)} in all, in the currency of the deployments' prices.`}
        times={overview.times}
        series={[{ label: "Spend", values: points.map((x) => x.cost) }]}
        format={moneyAxis}
        timeLabel={timeLabel}
      />
    </div>
  );
}

const bucketName = (seconds: number) =>
  seconds === 60
    ? "minute"
    : seconds < 3600
      ? `${seconds / 60} minutes`
      : seconds === 3600
        ? "hour"
        : `${seconds / 3600} hours`;

/** The range's figures per deployment and in all: the charts' numbers as text. */
export function DeploymentTable({
  overview,
  href,
  current,
}: {
  overview: UsageOverview;
  /** The link of a deployment's name (its charts); none: names are plain text. */
  href?: ((s: UsageSeries) => string) | undefined;
  current?: string | undefined;
}) {
  const row = (s: UsageSeries, total: boolean) => (
    <tr class={total ? "total" : undefined} data-deployment={total ? "all" : (s.deploymentId ?? "none")}>
      <th scope="row">
        {href && !total && s.deploymentId ? (
          <a href={href(s)} aria-current={s.deploymentId === current ? "true" : undefined} safe>
            {s.name}
          </a>
        ) : (
          <span safe>{s.name}</span>
        )}
      </th>
      <td class="num" data-figure="requests" safe>
        {count(s.sum.requests)}
      </td>
      <td class="num" data-figure="errors" safe>
        {count(errorsOf(s.sum))}
      </td>
      <td class="num" data-figure="input_tokens" safe>
        {count(s.sum.inputTokens)}
      </td>
      <td class="num" data-figure="output_tokens" safe>
        {count(s.sum.outputTokens)}
      </td>
      <td class="num" safe>
        {ms(quantileMs(s.sum.latency, 0.5))}
      </td>
      <td class="num" safe>
        {ms(quantileMs(s.sum.latency, 0.95))}
      </td>
      <td class="num" safe>
        {ms(quantileMs(s.sum.ttft, 0.5))}
      </td>
      <td class="num" safe>
        {ms(quantileMs(s.sum.ttft, 0.95))}
      </td>
      <td class="num" data-figure="spend" safe>
        {money(s.sum.cost)}
      </td>
    </tr>
  );
  return (
    // Focusable, so a keyboard can scroll it sideways on a phone.
    <section class="card table-card table-scroll" aria-label="Usage per deployment" tabindex="0">
      <table data-usage-table>
        <caption class="visually-hidden" safe>
          {`Usage per deployment, ${usageRanges[overview.range].label.toLowerCase()}`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Deployment</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Errors
            </th>
            <th scope="col" class="num">
              Input tokens
            </th>
            <th scope="col" class="num">
              Output tokens
            </th>
            <th scope="col" class="num">
              Latency p50
            </th>
            <th scope="col" class="num">
              p95
            </th>
            <th scope="col" class="num">
              First token p50
            </th>
            <th scope="col" class="num">
              p95
            </th>
            <th scope="col" class="num">
              Spend
            </th>
          </tr>
        </thead>
        <tbody>{overview.deployments.map((s) => row(s, false))}</tbody>
        <tfoot>{row(overview.total, true)}</tfoot>
      </table>
    </section>
  );
}
