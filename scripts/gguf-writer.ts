/**
 * A minimal GGUF v3 writer shared by the scripts that build test models (make-tiny-gguf.ts,
 * make-word-vector-gguf.ts): metadata of the few value types llama.cpp reads from them, and F32 or F16
 * tensors. Layout as in ggml/include/gguf.h: header, metadata, tensor infos, padding, then the aligned data.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { at } from "./checked.ts";

// GGUF value types (ggml/include/gguf.h).
const GGUF_TYPE = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
const GGML_TYPE = { f32: 0, f16: 1 } as const;
export const GGUF_ALIGNMENT = 32;

/** llama.cpp token types (LLAMA_TOKEN_TYPE_*). */
export const TOKEN_TYPE = { NORMAL: 1, UNKNOWN: 2, CONTROL: 3, BYTE: 6 } as const;

export type MetaValue =
  | { type: "u32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "str"; value: string }
  | { type: "str[]"; value: string[] }
  | { type: "f32[]"; value: number[] }
  | { type: "i32[]"; value: number[] };

/** ne[0] is the contiguous dimension (the input size of a weight matrix), ne[1] the number of rows. */
export type Tensor = { name: string; ne: number[]; data: Float32Array; type?: keyof typeof GGML_TYPE };

/** Little-endian byte sink that grows as needed. */
class Writer {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private static enc = new TextEncoder();

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  /** `size` bytes written by `write` at the end (the DataView and the offset given), then passed. */
  private put(size: number, write: (view: DataView, at: number) => void): void {
    this.reserve(size);
    write(this.view, this.length);
    this.length += size;
  }
  u32(v: number): void {
    this.put(4, (view, at) => view.setUint32(at, v, true));
  }
  i32(v: number): void {
    this.put(4, (view, at) => view.setInt32(at, v, true));
  }
  u64(v: number): void {
    this.put(8, (view, at) => view.setBigUint64(at, BigInt(v), true));
  }
  f32(v: number): void {
    this.put(4, (view, at) => view.setFloat32(at, v, true));
  }
  u8(v: number): void {
    this.reserve(1);
    this.buf[this.length++] = v;
  }
  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  str(s: string): void {
    const b = Writer.enc.encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  pad(alignment: number): void {
    while (this.length % alignment !== 0) this.u8(0);
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(w: Writer, v: MetaValue): void {
  switch (v.type) {
    case "u32":
      w.u32(GGUF_TYPE.UINT32);
      w.u32(v.value);
      return;
    case "f32":
      w.u32(GGUF_TYPE.FLOAT32);
      w.f32(v.value);
      return;
    case "bool":
      w.u32(GGUF_TYPE.BOOL);
      w.u8(v.value ? 1 : 0);
      return;
    case "str":
      w.u32(GGUF_TYPE.STRING);
      w.str(v.value);
      return;
    case "str[]":
      writeArray(w, GGUF_TYPE.STRING, v.value, (s) => w.str(s));
      return;
    case "f32[]":
      writeArray(w, GGUF_TYPE.FLOAT32, v.value, (x) => w.f32(x));
      return;
    case "i32[]":
      writeArray(w, GGUF_TYPE.INT32, v.value, (x) => w.i32(x));
      return;
  }
}

/** An array value: its element type, its length, then each element. */
function writeArray<T>(
  w: Writer,
  elementType: number,
  values: readonly T[],
  write: (value: T) => void,
): void {
  w.u32(GGUF_TYPE.ARRAY);
  w.u32(elementType);
  w.u64(values.length);
  for (const value of values) write(value);
}

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);

/** The IEEE half-precision bits of a value taken as float32, rounded to nearest even (as numpy and ggml convert). */
export function toHalfBits(value: number): number {
  scratchF32[0] = value;
  const x = at(scratchU32, 0);
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // Inf, NaN
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // too large: Inf
  if (e <= 0) {
    if (e < -10) return sign; // too small: ±0
    // Subnormal: shift the mantissa (with its implicit 1) right, rounding to nearest even.
    const m = mant | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = m & ((1 << shift) - 1);
    let r = m >>> shift;
    if (rest > half || (rest === half && (r & 1) === 1)) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1) === 1)) r++; // may carry into the exponent, as it should
  return sign | r;
}

function tensorBytes(t: Tensor): Uint8Array {
  if ((t.type ?? "f32") === "f32") return new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  const half = new Uint16Array(t.data.length);
  for (let i = 0; i < t.data.length; i++) half[i] = toHalfBits(at(t.data, i));
  return new Uint8Array(half.buffer);
}

/** Serializes a GGUF v3 file: header, metadata, tensor infos, padding, then the aligned tensor data. */
export function encodeGguf(metadata: [string, MetaValue][], tensors: Tensor[]): Uint8Array {
  const w = new Writer();
  w.bytes(new TextEncoder().encode("GGUF"));
  w.u32(3);
  w.u64(tensors.length);
  w.u64(metadata.length);
  for (const [key, value] of metadata) {
    w.str(key);
    writeValue(w, value);
  }
  const payloads = tensors.map(tensorBytes);
  let offset = 0;
  tensors.forEach((t, i) => {
    w.str(t.name);
    w.u32(t.ne.length);
    for (const n of t.ne) w.u64(n);
    w.u32(GGML_TYPE[t.type ?? "f32"]);
    w.u64(offset);
    offset += Math.ceil(at(payloads, i).byteLength / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  });
  w.pad(GGUF_ALIGNMENT);
  for (const bytes of payloads) {
    w.bytes(bytes);
    w.pad(GGUF_ALIGNMENT);
  }
  return w.result();
}

/**
 * Encodes and writes a GGUF file, making its folder first (a fresh installation has no
 * DATA_DIR/models yet); returns its bytes.
 */
export function writeGguf(path: string, metadata: [string, MetaValue][], tensors: Tensor[]): Uint8Array {
  const bytes = encodeGguf(metadata, tensors);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  return bytes;
}

/**
 * The command line of a script that writes one GGUF file: `<out.gguf>` and numeric flags (`flags`:
 * option key to flag name), each value checked by `valid`. Exits printing `usage` when it is not that.
 */
export function ggufCommandLine<K extends string>(
  usage: string,
  flags: Record<K, string>,
  valid: { test: (value: number) => boolean; what: string },
): { out: string; options: Partial<Record<K, number>> } {
  const args = process.argv.slice(2);
  const options: Partial<Record<K, number>> = {};
  const isFlag = (key: string): key is K => Object.hasOwn(flags, key);
  for (const key of Object.keys(flags).filter(isFlag)) {
    const name = flags[key];
    const i = args.indexOf(name);
    if (i < 0) continue;
    const value = Number(args.splice(i, 2)[1]);
    if (!valid.test(value)) throw new Error(`${name} takes ${valid.what}`);
    options[key] = value;
  }
  const out = args[0];
  if (!out || args.length > 1) {
    console.error(usage);
    process.exit(1);
  }
  return { out, options };
}
