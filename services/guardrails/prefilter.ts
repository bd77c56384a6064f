// Exact prefilters for the scanners' regular expressions, in the manner of RE2's and Hyperscan's:
// from a pattern's source we derive literal strings of which every match must contain at least one
// ("ignore|disregard|..." or "instructions|rules|..."), and a text that holds none of them is not
// searched at all. Most prompts are benign, so most of the ~40 patterns are skipped.
//
// Presence is tested on the text's trigram index (trigrams.ts), built once per text: a literal whose
// grams are not all present cannot occur, so the test never skips a pattern that would match (it
// may let through one that will not, which then simply finds nothing). In a literal, " " is any run
// of non-letters and "\b" a word boundary (trigrams.ts says how the index reads them).
import {
  BOUNDARY,
  gramFrequency,
  gramsOfLiteral,
  isLetter,
  NON_LETTER,
  selectivity,
  type Trigrams,
} from "./trigrams.ts";

export { sharedTrigrams, Trigrams } from "./trigrams.ts";

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
const BOUNDARY_INFO: Info = { exact: new Set([BOUNDARY]), required: [] };
const NON_LETTER_INFO: Info = { exact: new Set([NON_LETTER]), required: [] };
/** One character of any kind: to the index, one of its 27 classes ("f.ck" is "fack" ... "f ck"). */
const ANY_CHAR: Info = { exact: new Set([..."abcdefghijklmnopqrstuvwxyz", NON_LETTER]), required: [] };

function literal(c: string): Info {
  return { exact: new Set([c]), required: [] };
}

/** A clause the trigram index can test: every literal has grams. */
function testable(set: Set<string>): boolean {
  for (const s of set) if (gramsOfLiteral(s).length === 0) return false;
  return set.size > 0;
}

/** The clauses a node gives on its own (its exact strings, or what it requires). */
function clausesOf(info: Info): Clauses {
  if (info.exact) return testable(info.exact) ? [info.exact] : [];
  return info.required;
}

/** How selective a clause is: more telling literals, then fewer of them. */
function score(clause: Set<string>): number {
  let min = Infinity;
  for (const s of clause) min = Math.min(min, selectivity(s));
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
    for (const o of options) for (const s of o.exact ?? []) all.add(s);
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
    const [best = new Set<string>()] = top;
    combos = next.length <= MAX_CLAUSES ? next : combos.map((combo) => new Set([...combo, ...best]));
  }
  return { exact: null, required: combos };
}

/** The node matches only runs of non-letters (which the index reads as one). */
function nonLetters(info: Info): boolean {
  if (!info.exact) return false;
  for (const s of info.exact) for (let i = 0; i < s.length; i++) if (s[i] !== NON_LETTER) return false;
  return true;
}

function optional(child: Info): Info {
  const e = new Set(child.exact);
  e.add("");
  return { exact: e, required: [] };
}

/**
 * A quantified node, as the parts of a sequence. Non-letters repeated are one non-letter ("\s+" is
 * " ", "\s*" is "" or " "); an exact node repeated at least once is itself, then anything, then
 * itself again: the first and the last repetition (one and the same when there is one).
 */
function repeat(child: Info, min: number, max: number): Info[] {
  if (nonLetters(child)) return [min === 0 ? optional(child) : child];
  if (min === 0 && max === 1 && child.exact) return [optional(child)];
  if (min === 0) return [ANY];
  if (min === 1 && max === 1) return [child];
  if (!child.exact) return [{ exact: null, required: clausesOf(child) }];
  const parts: Info[] = [];
  for (let k = 0; k < Math.min(min, 4); k++) parts.push(child);
  if (max > min || min > 4) parts.push(ANY, child);
  return parts;
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
    const first = this.sequence();
    if (this.src[this.i] !== "|") return first;
    const options = [first];
    while (this.src[this.i] === "|") {
      this.i++;
      options.push(this.sequence());
    }
    return alternate(options);
  }

  sequence(): Info {
    const parts: Info[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      parts.push(...this.quantified(this.atom()));
    }
    return parts.length === 0 ? EMPTY : concat(parts);
  }

  quantified(atom: Info): Info[] {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === "?") [min, max] = [0, 1];
    else if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return [atom];
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return [atom];
    this.i++;
    if (this.src[this.i] === "?") this.i++; // lazy
    const parts = repeat(atom, min, max);
    // A quantifier of a quantifier ("a{2}{3}") is rare: the repeated parts as one node.
    const next = this.src[this.i];
    if (next === "?" || next === "*" || next === "+" || next === "{")
      return this.quantified(parts.length === 1 && parts[0] ? parts[0] : concat(parts));
    return parts;
  }

  char(c: string): Info {
    return literal(this.fold ? c.toLowerCase() : c);
  }

  atom(): Info {
    const c = this.src.charAt(this.i++);
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
    if (c === ".") return ANY_CHAR;
    if (c === "^" || c === "$") return EMPTY;
    if (c === "\\") return this.escape();
    return this.char(c);
  }

  /** An escape outside a class. */
  escape(): Info {
    const c = this.escapeLetter();
    if (c === "b") return BOUNDARY_INFO;
    if (c === "B") return EMPTY;
    // Whitespace, digits and non-word characters are all non-letters: one class in the index.
    if (c === "s" || c === "d" || c === "W") return NON_LETTER_INFO;
    if ("DwSpP".includes(c) || /[1-9k]/.test(c)) {
      this.skipName(c);
      return c === "k" || /[1-9]/.test(c) ? ANY : ANY_CHAR;
    }
    return this.char(this.escapedChar(c));
  }

  /** An escape in a class: a single character, or null for a class escape such as \d. */
  classEscape(): string | null {
    const c = this.escapeLetter();
    if (c === "s" || c === "d" || c === "W") return NON_LETTER;
    if ("DwSpP".includes(c)) {
      this.skipName(c);
      return null;
    }
    return this.escapedChar(c);
  }

  private escapeLetter(): string {
    if (this.i >= this.src.length) throw new Error(`prefilter: a lone \\ ends ${this.src}`);
    return this.src.charAt(this.i++);
  }

  /** \p{...}, \P{...} and \k<...> name what they mean: skipped. */
  private skipName(c: string): void {
    if (c === "p" || c === "P" || c === "k") this.i = this.src.indexOf(c === "k" ? ">" : "}", this.i) + 1;
  }

  /** The character a character escape stands for (\n, \x41, \u0041, \.). */
  private escapedChar(c: string): string {
    if (c === "n") return "\n";
    if (c === "t") return "\t";
    if (c === "r") return "\r";
    if (c === "f") return "\f";
    if (c === "v") return "\v";
    if (c === "0") return "\0";
    if (c === "x" || c === "u") {
      const digits = c === "x" ? 2 : 4;
      const ch = String.fromCharCode(Number.parseInt(this.src.slice(this.i, this.i + digits), 16));
      this.i += digits;
      return ch;
    }
    if (/[A-Za-z]/.test(c)) throw new Error(`prefilter: unsupported escape \\${c} in ${this.src}`);
    return c;
  }

  /** A class of a few characters is an alternation; a negated or wide one is any one character. */
  charClass(): Info {
    const negated = this.src[this.i] === "^";
    if (negated) this.i++;
    const chars = new Set<string>();
    let wide = negated;
    let nonLetterEscape = false;
    let first = true;
    while (first || this.src[this.i] !== "]") {
      first = false;
      if (this.i >= this.src.length) throw new Error(`prefilter: unclosed class in ${this.src}`);
      const c = this.src.charAt(this.i++);
      const from = c === "\\" ? this.classEscape() : c;
      if (from === null) {
        wide = true;
        continue;
      }
      if (from === NON_LETTER && c === "\\") {
        nonLetterEscape = true;
        continue;
      }
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]") {
        this.i++;
        const d = this.src.charAt(this.i++);
        const to = d === "\\" ? this.classEscape() : d;
        if (to === null || to.charCodeAt(0) - from.charCodeAt(0) > 8) wide = true;
        else for (let k = from.charCodeAt(0); k <= to.charCodeAt(0); k++) chars.add(String.fromCharCode(k));
        continue;
      }
      chars.add(from);
    }
    this.i++;
    if (wide) return ANY_CHAR;
    // A class of non-letters other than digits ("[ .\-_*]", "[,.;:!\n)]") is one non-letter to the
    // index; digits are kept apart, as the index pairs them.
    const letters = [...chars].some((ch) => isLetter(ch.charCodeAt(0)));
    const digits = [...chars].some((ch) => ch >= "0" && ch <= "9");
    if (!letters && !digits) return NON_LETTER_INFO;
    if (nonLetterEscape) return letters ? ANY : NON_LETTER_INFO;
    return alternate([...chars].map((ch) => this.char(ch)));
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
  const code = compile(clauses);
  const clauseCount = clauses.length;
  return {
    clauses,
    mayMatch(index: Trigrams): boolean {
      const seen = index.seenTable;
      const stamp = index.currentStamp;
      let at = 0;
      for (let k = 0; k < clauseCount; k++) {
        const groupsEnd = code[at] ?? 0;
        at++;
        let found = false;
        while (at < groupsEnd) {
          const groupEnd = code[at + 1] ?? 0;
          if (seen[code[at] ?? 0] === stamp) {
            let p = at + 2;
            while (p < groupEnd) {
              const end = p + 1 + (code[p] ?? 0);
              let t = p + 1;
              while (t < end && seen[code[t] ?? 0] === stamp) t++;
              if (t === end) break;
              p = end;
            }
            if (p < groupEnd) {
              found = true;
              break;
            }
          }
          at = groupEnd;
        }
        if (!found) return false;
        at = groupsEnd;
      }
      return true;
    },
  };
}

/** A literal's grams, the rarest (by English letter frequencies) first. */
function rarestFirst(literal: string): number[] {
  return [...new Set(gramsOfLiteral(literal))].sort((x, y) => gramFrequency(x) - gramFrequency(y));
}

/**
 * The clauses as one flat array, read in order (nested arrays cost a pointer chase each; this runs
 * ~170 times a scan). The literals of a clause are grouped by their rarest gram, the key tested
 * first: a clause of 60 phrases ("ignore all rules", "ignore the rules", ...) reads a handful of
 * keys when none occurs, not 60. Per clause: the index where it ends; per group: its key, the index
 * where it ends, and per literal its count of other grams and those grams.
 */
function compile(clauses: readonly (readonly string[])[]): Int32Array {
  const flat: number[] = [];
  for (const clause of clauses) {
    const groups = new Map<number, number[][]>();
    for (const literal of clause) {
      // Every literal of a clause has grams (clausesOf keeps only testable ones).
      const [key, ...rest] = rarestFirst(literal);
      if (key === undefined) continue;
      const group = groups.get(key) ?? [];
      group.push(rest);
      groups.set(key, group);
    }
    const clauseAt = flat.length;
    flat.push(0);
    for (const [key, literals] of groups) {
      const groupAt = flat.length;
      flat.push(key, 0);
      for (const rest of literals) flat.push(rest.length, ...rest);
      flat[groupAt + 1] = flat.length;
    }
    flat[clauseAt] = flat.length;
  }
  return Int32Array.from(flat);
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

/**
 * The prefilters of a list of patterns, tested together: `candidates` gives the indices of those
 * that may match, in order. The literals of every single-clause pattern (most of them: one word
 * each, as obscenity's ~120 terms) are grouped by rarest gram across the whole list, so the test
 * reads each distinct key once instead of calling ~120 prefilters.
 */
export class PrefilterSet {
  private readonly code: Int32Array;
  /** Patterns of several clauses (or none: always searched), tested one by one. */
  private readonly others: [number, Prefilter][] = [];
  private readonly marks: Uint8Array;

  constructor(patterns: readonly RegExp[]) {
    const groups = new Map<number, number[][]>();
    patterns.forEach((re, i) => {
      const p = prefilterOf(re);
      const [only] = p.clauses;
      if (p.clauses.length !== 1 || only === undefined) {
        this.others.push([i, p]);
        return;
      }
      for (const literal of only) {
        const [key, ...rest] = rarestFirst(literal);
        if (key === undefined) continue;
        const group = groups.get(key) ?? [];
        group.push([i, rest.length, ...rest]);
        groups.set(key, group);
      }
    });
    // Per group: its key, the index where it ends, then per literal its pattern, its count of
    // other grams and those grams.
    const flat: number[] = [];
    for (const [key, literals] of groups) {
      const at = flat.length;
      flat.push(key, 0);
      for (const literal of literals) flat.push(...literal);
      flat[at + 1] = flat.length;
    }
    this.code = Int32Array.from(flat);
    this.marks = new Uint8Array(patterns.length);
  }

  /** The indices of the patterns that may match the indexed text, ascending, into `out`; their count. */
  candidates(index: Trigrams, out: Int32Array): number {
    const seen = index.seenTable;
    const stamp = index.currentStamp;
    const code = this.code;
    const marks = this.marks;
    marks.fill(0);
    let any = false;
    for (let at = 0; at < code.length; ) {
      const groupEnd = code[at + 1] ?? 0;
      if (seen[code[at] ?? 0] === stamp) {
        for (let p = at + 2; p < groupEnd; ) {
          const pattern = code[p] ?? 0;
          const end = p + 2 + (code[p + 1] ?? 0);
          let t = p + 2;
          while (t < end && seen[code[t] ?? 0] === stamp) t++;
          if (t === end) {
            marks[pattern] = 1;
            any = true;
          }
          p = end;
        }
      }
      at = groupEnd;
    }
    for (const [i, p] of this.others) {
      if (p.mayMatch(index)) {
        marks[i] = 1;
        any = true;
      }
    }
    let n = 0;
    if (any) for (let i = 0; i < marks.length; i++) if (marks[i] === 1) out[n++] = i;
    return n;
  }
}
