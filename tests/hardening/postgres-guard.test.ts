// The server's process guard (db/resilient-postgres.ts guardPostgresProcess): postgres.js writing to a
// socket it closed, thrown from a timer, replaces the pools instead of ending the process; any other
// uncaught error still ends it with status 1. Each case runs in a process of its own.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { isClosedSocketWrite } from "#db/resilient-postgres.ts";

const root = join(import.meta.dir, "..", "..");

/** postgres.js's error as Bun throws it from connection.js's nextWrite. */
function closedSocketWrite(): TypeError {
  const error = new TypeError("null is not an object (evaluating 'socket.write')");
  error.stack = `${error.message}\n    at nextWrite (${root}/node_modules/postgres/src/connection.js:255:15)`;
  return error;
}

test("only postgres.js's write to a closed socket is recognised", () => {
  expect(isClosedSocketWrite(closedSocketWrite())).toBe(true);
  expect(isClosedSocketWrite(new TypeError("null is not an object (evaluating 'socket.write')"))).toBe(false);
  const other = new TypeError("undefined is not a function");
  other.stack = `${other.message}\n    at f (${root}/node_modules/postgres/src/connection.js:1:1)`;
  expect(isClosedSocketWrite(other)).toBe(false);
});

type Thrown = "closed-socket" | "other" | "lost-connection-rejection" | "other-rejection";

async function runGuarded(thrown: Thrown): Promise<{ code: number; out: string }> {
  const at = `\\n    at ErrorResponse (${root}/node_modules/postgres/src/connection.js:815:30)`;
  const fault = {
    "closed-socket": `const e = new TypeError("null is not an object (evaluating 'socket.write')"); e.stack = e.message + "${at}"; throw e;`,
    other: `const e = new TypeError("boom"); e.stack = e.message + "${at}"; throw e;`,
    "lost-connection-rejection": `const e = new Error("terminating connection due to administrator command"); e.code = "57P01"; e.stack = e.message + "${at}"; Promise.reject(e);`,
    "other-rejection": `Promise.reject(new Error("boom"));`,
  }[thrown];
  const script = `
    import { guardPostgresProcess } from "#db/resilient-postgres.ts";
    guardPostgresProcess({ warn: (m) => console.log("warn " + m), error: (m) => console.log("error " + m) });
    setImmediate(() => { ${fault} });
    setTimeout(() => { console.log("still alive"); process.exit(0); }, 200);
  `;
  const proc = Bun.spawn(["bun", "-e", script], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, out };
}

test("the guard keeps the process up after a closed-socket write, and logs it", async () => {
  const { code, out } = await runGuarded("closed-socket");
  expect(out).toContain("warn postgres.js wrote to a closed connection; pool replaced");
  expect(out).toContain("still alive");
  expect(code).toBe(0);
});

test("a lost connection's query rejected with nobody listening is logged; the process stays up", async () => {
  const { code, out } = await runGuarded("lost-connection-rejection");
  expect(out).toContain("warn postgres.js rejected a query of a lost connection with nobody listening");
  expect(out).toContain("still alive");
  expect(code).toBe(0);
});

test("any other unhandled rejection still ends the process with status 1", async () => {
  const { code, out } = await runGuarded("other-rejection");
  expect(out).toContain("error unhandled rejection; stopping");
  expect(code).toBe(1);
});

test("any other uncaught error still ends the process with status 1", async () => {
  const { code, out } = await runGuarded("other");
  expect(out).toContain("error uncaught exception; stopping");
  expect(out).not.toContain("still alive");
  expect(code).toBe(1);
});
