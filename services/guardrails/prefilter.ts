// Exact prefilters for the scanners' regular expressions, in the manner of RE2's and Hyperscan's:
// from a pattern's source we derive literal strings of which every match must contain at least one
// ("ignore|disregard|..." or "instructions|rules|..."), and a text that holds none of them is not
// searched at all. Most prompts are benign, so most of the ~40 patterns are skipped.
//
// Presence is tested on a table of the text's letter trigrams, built once per text: a literal whose
// trigrams are not all present cannot occur, so the test never skips a pattern that would match (it
// may let through one that will not, which then simply finds nothing). Characters other than ASCII
// letters share one class, which keeps the table small and the test exact.

/**
 * What every match of a node contains: each clause is a set of literals one of which occurs (all the
 * clauses hold at once, e.g. "ignore|disregard|..." and "instructions|rules|..."). Empty: no constraint.
 */
type Clauses = Set<string>[];

interface Info {
  /** Every string the node can match, when that set is small; null otherwise. */
  exact: Set<string> | null;
  required: Clauses;
}

const MAX_EXACT = 64;
// Bounds of the clauses an alternation gives (see alternate()).
const MAX_CLAUSE_CHOICES = 3;
const MAX_CLAUSES = 12;
const ANY: Info = { exact: null, required: [] };
const EMPTY: Info = { exact: new Set([""]), required: [] };

function literal(c: string): Info {
  return { exact: new Set([c]), required: [] };
}

/** A clause the trigram index can test: no literal shorter than two characters. */
function testable(set: Set<string>): boolean {
  for (const s of set) if (s.length < 2) return false;
  return set.size > 0;
}

/** The clauses a node gives on its own (its exact strings, or what it requires). */
function clausesOf(info: Info): Clauses {
  if (info.exact) return testable(info.exact) ? [info.exact] : [];
  return info.required;
}

/** How selective a clause is: longer literals, then fewer of them. */
function score(clause: Set<string>): number {
  let min = Infinity;
  for (const s of clause) min = Math.min(min, s.length);
  return min * 1000 - clause.size;
}

function cross(a: Set<string>, b: Set<string>): Set<string> | null {
  if (a.size * b.size > MAX_EXACT) return null;
  const out = new Set<string>();
  for (const x of a) for (const y of b) out.add(x + y);
  return out;
}

function concat(parts: Info[]): Info {
  const required: Clauses = [];
  let run: Set<string> = new Set([""]);
  let complete = true;
  for (const p of parts) {
    if (p.exact) {
      const next = cross(run, p.exact);
      if (next) {
        run = next;
        continue;
      }
    }
    complete = false;
    if (testable(run)) required.push(run);
    if (p.exact) run = new Set(p.exact);
    else {
      required.push(...p.required);
      run = new Set([""]);
    }
  }
  if (complete) return { exact: run, required: [] };
  if (testable(run)) required.push(run);
  return { exact: null, required };
}

function alternate(options: Info[]): Info {
  if (options.every((o) => o.exact)) {
    const all = new Set<string>();
    for (const o of options) for (const s of o.exact as Set<string>) all.add(s);
    if (all.size <= MAX_EXACT) return { exact: all, required: [] };
  }
  // (A1 and A2) or (B1 and B2) implies (A1 or B1) and (A1 or B2) and (A2 or B1) and (A2 or B2): each
  // clause of the result takes one clause of every option, while there are few enough of them.
  let combos: Set<string>[] = [new Set()];
  for (const o of options) {
    const clauses = clausesOf(o);
    if (clauses.length === 0) return ANY;
    const top = [...clauses].sort((a, b) => score(b) - score(a)).slice(0, MAX_CLAUSE_CHOICES);
    const next: Set<string>[] = [];
    for (const combo of combos) for (const c of top) next.push(new Set([...combo, ...c]));
    combos =
      next.length <= MAX_CLAUSES
        ? next
        : combos.map((combo) => new Set([...combo, ...(top[0] as Set<string>)]));
  }
  return { exact: null, required: combos };
}

function repeat(child: Info, min: number, max: number): Info {
  if (min === 0 && max === 1 && child.exact) {
    const e = new Set(child.exact);
    e.add("");
    return { exact: e, required: [] };
  }
  if (min === 0) return ANY;
  if (min === 1 && max === 1) return child;
  return { exact: null, required: clausesOf(child) };
}

/** A small parser of the regular-expression syntax the scanners use. */
class Parser {
  i = 0;
  constructor(
    readonly src: string,
    readonly fold: boolean,
  ) {}

  parse(): Info {
    const info = this.alternation();
    if (this.i !== this.src.length) throw new Error(`prefilter: unexpected ) in ${this.src}`);
    return info;
  }

  alternation(): Info {
    const options = [this.sequence()];
    while (this.src[this.i] === "|") {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as Info) : alternate(options);
  }

  sequence(): Info {
    const parts: Info[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      parts.push(this.quantified(this.atom()));
    }
    return parts.length === 0 ? EMPTY : concat(parts);
  }

  quantified(atom: Info): Info {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === "?") [min, max] = [0, 1];
    else if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.src[this.i] === "?") this.i++; // lazy
    return this.quantified(repeat(atom, min, max));
  }

  char(c: string): Info {
    return literal(this.fold ? c.toLowerCase() : c);
  }

  atom(): Info {
    const c = this.src[this.i++] as string;
    if (c === "(") {
      let zeroWidth = false;
      if (this.src[this.i] === "?") {
        const rest = this.src.slice(this.i, this.i + 3);
        if (rest.startsWith("?:")) this.i += 2;
        else if (rest.startsWith("?=") || rest.startsWith("?!")) [this.i, zeroWidth] = [this.i + 2, true];
        else if (rest === "?<=" || rest === "?<!") [this.i, zeroWidth] = [this.i + 3, true];
        else if (rest.startsWith("?<")) this.i = this.src.indexOf(">", this.i) + 1;
        else throw new Error(`prefilter: unsupported group in ${this.src}`);
      }
      const inner = this.alternation();
      if (this.src[this.i++] !== ")") throw new Error(`prefilter: unclosed group in ${this.src}`);
      return zeroWidth ? EMPTY : inner;
    }
    if (c === "[") return this.charClass();
    if (c === ".") return ANY;
    if (c === "^" || c === "$") return EMPTY;
    if (c === "\\") return this.escape(false) as Info;
    return this.char(c);
  }

  /** An escape; in a class, a single character or null (a class escape such as \d). */
  escape(inClass: boolean): Info | string | null {
    const c = this.src[this.i++] as string;
    if (!inClass && (c === "b" || c === "B")) return EMPTY;
    if ("dDwWsSpP".includes(c) || (!inClass && /[1-9k]/.test(c))) {
      if (c === "p" || c === "P" || c === "k") this.i = this.src.indexOf(c === "k" ? ">" : "}", this.i) + 1;
      return inClass ? null : ANY;
    }
    let ch: string;
    if (c === "n") ch = "\n";
    else if (c === "t") ch = "\t";
    else if (c === "r") ch = "\r";
    else if (c === "f") ch = "\f";
    else if (c === "v") ch = "\v";
    else if (c === "0") ch = "\0";
    else if (c === "x") {
      ch = String.fromCharCode(Number.parseInt(this.src.slice(this.i, this.i + 2), 16));
      this.i += 2;
    } else if (c === "u") {
      ch = String.fromCharCode(Number.parseInt(this.src.slice(this.i, this.i + 4), 16));
      this.i += 4;
    } else if (/[A-Za-z]/.test(c)) throw new Error(`prefilter: unsupported escape \\${c} in ${this.src}`);
    else ch = c;
    return inClass ? ch : this.char(ch);
  }

  /** A class of a few characters is an alternation; a negated or wide one matches anything. */
  charClass(): Info {
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const chars = new Set<string>();
    let wide = negated;
    let first = true;
    while (first || this.src[this.i] !== "]") {
      first = false;
      if (this.i >= this.src.length) throw new Error(`prefilter: unclosed class in ${this.src}`);
      let from: string | null;
      const c = this.src[this.i++] as string;
      from = c === "\\" ? (this.escape(true) as string | null) : c;
      if (from === null) {
        wide = true;
        continue;
      }
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]") {
        this.i++;
        const d = this.src[this.i++] as string;
        const to = d === "\\" ? (this.escape(true) as string | null) : d;
        if (to === null || to.charCodeAt(0) - from.charCodeAt(0) > 8) wide = true;
        else for (let k = from.charCodeAt(0); k <= to.charCodeAt(0); k++) chars.add(String.fromCharCode(k));
        continue;
      }
      chars.add(from);
    }
    this.i++;
    if (wide) return ANY;
    return alternate([...chars].map((ch) => this.char(ch)));
  }
}

const CLASSES = 27;

/** The trigram class of a character: a-z (upper case folded) 1..26, anything else 0. */
function classOf(c: number): number {
  if (c >= 97 && c <= 122) return c - 96;
  if (c >= 65 && c <= 90) return c - 64;
  return 0;
}

const BIGRAMS = CLASSES * CLASSES * CLASSES;

/** A literal's trigrams; a two-character literal is one bigram, numbered after the trigrams. */
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) CLASS[c] = classOf(c);

function trigramsOfLiteral(s: string): number[] {
  if (s.length === 2) return [BIGRAMS + classOf(s.charCodeAt(0)) * CLASSES + classOf(s.charCodeAt(1))];
  const out: number[] = [];
  for (let i = 0; i + 2 < s.length; i++) {
    out.push(
      (classOf(s.charCodeAt(i)) * CLASSES + classOf(s.charCodeAt(i + 1))) * CLASSES +
        classOf(s.charCodeAt(i + 2)),
    );
  }
  return out;
}

/** The trigrams (and bigrams) present in a text, built once per text and shared by every prefilter. */
export class Trigrams {
  private readonly seen = new Uint32Array(BIGRAMS + CLASSES * CLASSES);
  private stamp = 0;
  private text: string | null = null;

  /** Indexes `text` (a no-op when it is the text indexed last). */
  of(text: string): this {
    if (this.text === text) return this;
    this.text = text;
    const stamp = this.next();
    const seen = this.seen;
    const n = text.length;
    // Two classes of nothing before the text: the extra grams only make the test less selective.
    let b = 0;
    let ab = 0;
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i);
      const c = code < 128 ? (CLASS[code] as number) : 0;
      seen[BIGRAMS + b * CLASSES + c] = stamp;
      seen[ab * CLASSES + c] = stamp;
      ab = b * CLASSES + c;
      b = c;
    }
    return this;
  }

  /** Indexes the UTF-16 code units codes[0..n) (a text not yet made a string). */
  ofCodes(codes: Uint16Array, n: number): this {
    this.text = null;
    const stamp = this.next();
    const seen = this.seen;
    let b = 0;
    let ab = 0;
    for (let i = 0; i < n; i++) {
      const code = codes[i] as number;
      const c = code < 128 ? (CLASS[code] as number) : 0;
      seen[BIGRAMS + b * CLASSES + c] = stamp;
      seen[ab * CLASSES + c] = stamp;
      ab = b * CLASSES + c;
      b = c;
    }
    return this;
  }

  private next(): number {
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  /** Whether the text indexed last holds this trigram (or bigram). */
  has(trigram: number): boolean {
    return this.seen[trigram] === this.stamp;
  }

  /** has(t) is seenTable[t] === currentStamp (for the prefilters' inner loop). */
  get seenTable(): Uint32Array {
    return this.seen;
  }

  get currentStamp(): number {
    return this.stamp;
  }

  /**
   * `same` is `indexed` with only the case of letters changed (its lower case): its trigrams are the
   * same, so when `indexed` is the text indexed last, the index serves `same` without a new pass.
   */
  alias(indexed: string, same: string): void {
    if (this.text === indexed) this.text = same;
  }
}

/** Decides from a text's trigrams whether a pattern can match it. */
export interface Prefilter {
  /** False only when the pattern cannot match the indexed text. */
  mayMatch(grams: Trigrams): boolean;
  /** The clauses found (for tests and debugging): one literal of each occurs in every match. */
  readonly clauses: readonly (readonly string[])[];
}

const ALWAYS: Prefilter = { mayMatch: () => true, clauses: [] };

/**
 * The prefilter of a regular expression. Text is compared case-insensitively (trigram classes fold
 * case), so patterns with or without the `i` flag are both served; a pattern with `u` and `i` (Unicode
 * case folding maps "ſ" to "s") or a construct the parser does not know is always searched.
 */
export function prefilterOf(re: RegExp): Prefilter {
  if (re.flags.includes("u") && re.flags.includes("i")) return ALWAYS;
  let info: Info;
  try {
    info = new Parser(re.source, re.flags.includes("i")).parse();
  } catch {
    return ALWAYS;
  }
  const clauses = clausesOf(info).map((c) => [...c]);
  if (clauses.length === 0) return ALWAYS;
  // The most selective clause first: most texts fail there.
  clauses.sort((a, b) => score(new Set(b)) - score(new Set(a)));
  // One flat array, read in order: per clause its literal count, then per literal its trigram count
  // and trigrams (nested arrays of arrays cost a pointer chase each; this runs ~150 times a scan).
  const flat: number[] = [];
  for (const clause of clauses) {
    flat.push(clause.length);
    for (const literal of clause) {
      const trigrams = trigramsOfLiteral(literal);
      flat.push(trigrams.length, ...trigrams);
    }
  }
  const code = Int32Array.from(flat);
  return {
    clauses,
    mayMatch(index: Trigrams): boolean {
      const seen = index.seenTable;
      const stamp = index.currentStamp;
      let at = 0;
      for (let k = 0; k < clauses.length; k++) {
        const literals = code[at++] as number;
        let found = false;
        for (let j = 0; j < literals; j++) {
          const length = code[at++] as number;
          const end = at + length;
          if (!found) {
            let t = at;
            while (t < end && seen[code[t] as number] === stamp) t++;
            found = t === end;
          }
          at = end;
        }
        if (!found) return false;
      }
      return true;
    },
  };
}

const byPattern = new WeakMap<RegExp, Prefilter>();

/** The prefilter of a pattern, derived once. */
export function prefilterFor(re: RegExp): Prefilter {
  let p = byPattern.get(re);
  if (p === undefined) {
    p = prefilterOf(re);
    byPattern.set(re, p);
  }
  return p;
}

/** One index shared by the scanners: a text scanned by several of them is indexed once. */
export const sharedTrigrams = new Trigrams();
