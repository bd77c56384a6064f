// Leave-one-source-out measurement: for every source family, a model is trained on all the other
// families and measured on that one, so every figure is on text from a source the model never saw
// (the fixed same-source split of load.ts is not: its held-out texts share templates, authors and
// wording with the training ones). Generic over the model and the scoring so other datasets and
// scanners (the indirect-injection set) plug in with their own `train` and `flagged`.

export interface SourcedItem {
  text: string;
  label: boolean;
  source: string;
}

export interface SourceRow {
  /** The family held out together (see familyOf). */
  family: string;
  source: string;
  label: boolean;
  texts: number;
  flagged: number;
}

export interface Pooled {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  fpr: number;
}

export interface LosoResult {
  rows: SourceRow[];
  pooled: Pooled;
}

/**
 * A source's family: the part of `source` before the colon ("tensor-trust:hijacking" and
 * "tensor-trust:extraction" are one family). Sub-sources of one repository share authors, templates
 * and generators, so holding out one while training on its sibling would be a same-source split.
 */
export function familyOf(source: string): string {
  return source.split(":")[0] ?? source;
}

export function pooledOf(rows: readonly SourceRow[]): Pooled {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const r of rows) {
    if (r.label) {
      tp += r.flagged;
      fn += r.texts - r.flagged;
    } else {
      fp += r.flagged;
      tn += r.texts - r.flagged;
    }
  }
  return {
    tp,
    fp,
    fn,
    tn,
    precision: tp + fp === 0 ? 0 : tp / (tp + fp),
    recall: tp + fn === 0 ? 0 : tp / (tp + fn),
    fpr: fp + tn === 0 ? 0 : fp / (fp + tn),
  };
}

/**
 * For each family of `items`: `train` on the items of every other family, then count per source of the
 * held-out family how many of its items `flagged` says the model flags. Each item is measured once, by
 * the one model that never saw its family. `onFold` reports progress (the bench prints it).
 */
export function leaveOneSourceOut<T extends SourcedItem, M>(
  items: readonly T[],
  train: (items: readonly T[]) => M,
  flagged: (model: M, item: T) => boolean,
  options: { familyOf?: (source: string) => string; onFold?: (family: string) => void } = {},
): LosoResult {
  const family = options.familyOf ?? familyOf;
  const families = [...new Set(items.map((i) => family(i.source)))].sort();
  const rows: SourceRow[] = [];
  for (const held of families) {
    options.onFold?.(held);
    const model = train(items.filter((i) => family(i.source) !== held));
    const bySource = new Map<string, SourceRow>();
    for (const item of items) {
      if (family(item.source) !== held) continue;
      const key = `${item.source}\u0000${item.label}`;
      const row = bySource.get(key) ?? {
        family: held,
        source: item.source,
        label: item.label,
        texts: 0,
        flagged: 0,
      };
      row.texts++;
      if (flagged(model, item)) row.flagged++;
      bySource.set(key, row);
    }
    rows.push(...bySource.values());
  }
  return { rows, pooled: pooledOf(rows) };
}
