// Percentiles from the rollups' fixed histograms (db/schema/inference-log-rollups.ts): merged by adding
// counts bucket by bucket, then read by walking the cumulative counts and interpolating linearly inside
// the bucket where the rank falls. The estimate stays inside the true value's bucket (×1.5 wide), and the
// largest value seen caps the open last bucket, so a p95 of a slow minute is never "infinity".
import { latencyBoundsMs } from "#db/schema/index.ts";

export interface Histogram {
  counts: number[];
  /** The largest value counted (ms); 0 when none was. */
  maxMs: number;
}

export const emptyHistogram = (): Histogram => ({
  counts: Array(latencyBoundsMs.length + 1).fill(0),
  maxMs: 0,
});

export function addHistogram(into: Histogram, from: Histogram): void {
  for (let i = 0; i < into.counts.length; i++) into.counts[i] = (into.counts[i] ?? 0) + (from.counts[i] ?? 0);
  into.maxMs = Math.max(into.maxMs, from.maxMs);
}

export const histogramCount = (h: Histogram): number => h.counts.reduce((a, b) => a + b, 0);

/** The q-quantile (0 < q < 1) in ms, or null when the histogram is empty. */
export function quantileMs(h: Histogram, q: number): number | null {
  const total = histogramCount(h);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const n = h.counts[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const lower = i === 0 ? 0 : (latencyBoundsMs[i - 1] as number);
      const upper = Math.min(latencyBoundsMs[i] ?? h.maxMs, h.maxMs);
      if (upper <= lower) return Math.min(lower, h.maxMs);
      return lower + ((rank - below) / n) * (upper - lower);
    }
    below += n;
  }
  return h.maxMs;
}
