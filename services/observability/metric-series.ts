// prom-client 15 hashes and checks a labels object on every update (a dozen updates a request cost
// about 4 µs of CPU). A request updates the same few series as the requests before it, so each
// series' stored entry is found once, after one update through prom-client's own API created it, and
// then updated in place as prom-client would. A reset of the metric replaces its map: the entry is
// then missing, and the next update goes through the API again. Only what prom-client stores is
// touched (`hashMap`, read with its own label order), so /metrics renders exactly the same text.
import type { Counter, Gauge, Histogram } from "prom-client";

type Labels = Readonly<Record<string, string | number>>;
type Metric = Counter<string> | Gauge<string> | Histogram<string>;

interface Internals {
  hashMap?: Record<string, Entry | undefined>;
  sortedLabelNames?: readonly string[];
  upperBounds?: readonly number[];
}

interface Entry {
  value: number;
  sum: number;
  count: number;
  bucketValues: Record<number, number>;
}

/** prom-client's key of a label set (util.js hashObject with the metric's sorted label names). */
function hashOf(metric: Internals, labels: Labels): string {
  let hash = "";
  for (const key of metric.sortedLabelNames ?? []) {
    const value = labels[key];
    if (value !== undefined) hash += `${key}:${value},`;
  }
  return hash;
}

/** One series of one metric: its label values fixed. */
export class Series {
  private readonly hash: string;
  private readonly internals: Internals;

  constructor(
    private readonly metric: Metric,
    private readonly labels: Labels,
  ) {
    this.internals = metric as unknown as Internals;
    this.hash = hashOf(this.internals, labels);
  }

  private entry(): Entry | undefined {
    return this.internals.hashMap?.[this.hash];
  }

  inc(value = 1): void {
    const entry = this.entry();
    if (entry !== undefined && value >= 0 && Number.isFinite(value)) entry.value += value;
    else if ("inc" in this.metric) this.metric.inc(this.labels, value);
    else throw new TypeError("inc() of a histogram");
  }

  /** Gauges only. */
  dec(value = 1): void {
    const entry = this.entry();
    if (entry !== undefined && Number.isFinite(value)) entry.value -= value;
    else if ("dec" in this.metric) this.metric.dec(this.labels, value);
    else throw new TypeError("dec() of a counter or histogram");
  }

  /** Histograms only. */
  observe(value: number): void {
    const entry = this.entry();
    const bounds = this.internals.upperBounds;
    if (entry === undefined || bounds === undefined || !Number.isFinite(value)) {
      if (!("observe" in this.metric)) throw new TypeError("observe() of a counter or gauge");
      this.metric.observe(this.labels, value);
      return;
    }
    entry.sum += value;
    entry.count += 1;
    for (const bound of bounds) {
      if (value <= bound) {
        const buckets = entry.bucketValues;
        const count = buckets[bound];
        if (Object.hasOwn(buckets, bound) && count !== undefined) buckets[bound] = count + 1;
        return;
      }
    }
  }
}

/**
 * The series of one metric by a caller's key (which must name the label values: the same key, the
 * same labels); `labels` is called for a key not seen before. Bounded as the labels are.
 */
export class SeriesCache {
  private readonly series = new Map<string, Series>();

  constructor(private readonly metric: Metric) {}

  get(key: string, labels: () => object): Series {
    let s = this.series.get(key);
    if (s === undefined) {
      s = new Series(this.metric, labels() as Labels);
      this.series.set(key, s);
    }
    return s;
  }
}
