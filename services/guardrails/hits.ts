import type { Finding, Scanner, ScannerId } from "./scanner.ts";

/** A raw signal a scanner found, before the scanner-wide score is known. */
export interface Hit {
  type: string;
  weight: number;
  start: number;
  end: number;
  /** Which pattern produced it; hits of one signal count once (see bestPerSignal). */
  signal?: number;
}

/** The strongest signal of each type counts once; types combine as independent evidence. */
export function bestPerType(hits: readonly Hit[]): number[] {
  const best = new Map<string, number>();
  for (const h of hits) best.set(h.type, Math.max(best.get(h.type) ?? 0, h.weight));
  return [...best.values()];
}

/** The strongest hit of each signal (hits without one count by type): evidence, not repetition. */
export function bestPerSignal(hits: readonly Hit[]): number[] {
  const best = new Map<string, number>();
  for (const h of hits) {
    const key = h.signal === undefined ? `t:${h.type}` : `s:${h.signal}`;
    best.set(key, Math.max(best.get(key) ?? 0, h.weight));
  }
  return [...best.values()];
}

/** Findings in text order, overlapping hits of the same type merged into one span. */
export function toFindings(scanner: ScannerId, hits: Hit[], score: number): Finding[] {
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  const findings: Finding[] = [];
  for (const h of hits) {
    const prev = findings[findings.length - 1];
    if (prev && prev.type === h.type && h.start < prev.end) {
      prev.end = Math.max(prev.end, h.end);
      continue;
    }
    findings.push({ scanner, type: h.type, score, start: h.start, end: h.end });
  }
  return findings;
}

/**
 * A scanner that scores the hits `analyse` collects: nothing when it is off, on empty text, or below
 * its threshold (the config's, else `defaultThreshold`); otherwise the hits as findings.
 */
export function hitScanner<H extends Hit>(
  id: ScannerId,
  defaultThreshold: number,
  analyse: (text: string, hits: H[]) => number,
): Scanner {
  return {
    id,
    defaultThreshold,
    scan(text, config) {
      if (config.action === "off" || text.length === 0) return [];
      const threshold = config.threshold ?? defaultThreshold;
      const hits: H[] = [];
      const score = analyse(text, hits);
      if (score < threshold || hits.length === 0) return [];
      return toFindings(id, hits, score);
    },
  };
}
