// A line chart drawn on the server as SVG: no script, nothing the strict CSP refuses (colours come from
// classes in app.css, never a style attribute), and it scales with its box (viewBox, width 100%), so it
// fits a phone. For assistive technology it is one image with a title and a description that says
// what it shows in words; the figures themselves are in the table beside the charts.

export interface ChartSeries {
  label: string;
  /** One per time; null: nothing to draw there (no request had a latency, say). */
  values: (number | null)[];
}

export interface LineChartProps {
  id: string;
  title: string;
  /** What the chart shows, in words (the SVG's <desc>). */
  summary: string;
  times: Date[];
  series: ChartSeries[];
  /** An axis label. */
  format: (value: number) => string;
  timeLabel: (time: Date) => string;
}

const width = 480;
const height = 190;
const right = 10;
const top = 10;
const bottom = 24;

/** The smallest of 1, 2, 2.5 and 5 times a power of ten at or above `max`. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Room left of the plot for the longest value label: about 0.6 em a character at the phone's 17-unit
 * axis text (app.css), the largest it is drawn, so "500 ms" is never cut to "00 ms".
 */
export const leftMargin = (labels: string[]) =>
  Math.max(36, Math.ceil(Math.max(0, ...labels.map((l) => l.length)) * 10.5) + 10);

/** An SVG path through the values, broken where a value is null; a lone value is a dot. */
function pathOf(values: (number | null)[], ceiling: number, left: number): string {
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const step = values.length > 1 ? plotWidth / (values.length - 1) : 0;
  let path = "";
  let run = 0;
  values.forEach((value, i) => {
    if (value === null) {
      if (run === 1) path += "h0.1";
      run = 0;
      return;
    }
    const x = round(left + i * step);
    const y = round(top + plotHeight * (1 - value / ceiling));
    path += `${run > 0 ? "L" : "M"}${x} ${y}`;
    run++;
  });
  return run === 1 ? `${path}h0.1` : path;
}

export function LineChart(props: LineChartProps) {
  const { id, series, times } = props;
  const max = Math.max(0, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const ceiling = niceCeiling(max);
  const plotHeight = height - top - bottom;
  const grid = [0, 0.5, 1].map((f) => ({
    y: round(top + plotHeight * (1 - f)),
    label: props.format(ceiling * f),
  }));
  const left = leftMargin(grid.map((g) => g.label));
  const first = times[0];
  const middle = times[Math.floor(times.length / 2)];
  const last = times[times.length - 1];
  return (
    <figure class="chart">
      <figcaption safe>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        data-chart={id}
      >
        <title id={`${id}-title`} safe>
          {props.title}
        </title>
        <desc id={`${id}-desc`} safe>
          {props.summary}
        </desc>
        {grid.map((g) => (
          <>
            <line class="grid" x1={left} x2={width - right} y1={g.y} y2={g.y} />
            <text class="axis" x={left - 6} y={g.y + 4} text-anchor="end" safe>
              {g.label}
            </text>
          </>
        ))}
        {first ? (
          <text class="axis" x={left} y={height - 6} text-anchor="start" safe>
            {props.timeLabel(first)}
          </text>
        ) : null}
        {middle ? (
          <text
            class="axis"
            x={round(left + (width - left - right) / 2)}
            y={height - 6}
            text-anchor="middle"
            safe
          >
            {props.timeLabel(middle)}
          </text>
        ) : null}
        {last ? (
          <text class="axis" x={width - right} y={height - 6} text-anchor="end" safe>
            {props.timeLabel(last)}
          </text>
        ) : null}
        {series.map((s, i) => (
          <path class={`line series-${i}`} d={pathOf(s.values, ceiling, left)} data-series={s.label} />
        ))}
      </svg>
      <ul class="legend">
        {series.map((s, i) => (
          <li>
            <span class={`swatch series-${i}`} aria-hidden="true"></span>
            <span safe>{s.label}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}
