// Reading a worker's stdout and stderr files from a byte offset, whole lines only, so a line being
// written is read once it is complete.
import { closeSync, openSync, readSync, statSync } from "node:fs";

const maxChunkBytes = 256 * 1024;

export function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Complete lines from `offset`, and the offset after the last one read. */
export function readLines(path: string, offset: number): { lines: string[]; offset: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { lines: [], offset };
  }
  try {
    const buffer = Buffer.alloc(maxChunkBytes);
    const read = readSync(fd, buffer, 0, maxChunkBytes, offset);
    if (read <= 0) return { lines: [], offset };
    const chunk = buffer.subarray(0, read);
    let end = chunk.lastIndexOf(0x0a);
    if (end < 0) {
      // One line longer than the chunk: cut it rather than stall on it.
      if (read < maxChunkBytes) return { lines: [], offset };
      end = read - 1;
    }
    const text = chunk.subarray(0, end + 1).toString("utf8");
    const lines = text
      .split("\n")
      .slice(0, -1)
      .map((l) => l.replace(/\r$/, ""));
    return { lines, offset: offset + end + 1 };
  } finally {
    closeSync(fd);
  }
}
