// Waiting in tests without guessing a time. Three cases, three names, so `grep Bun.sleep tests` finds
// only the seams below (and fixtures that simulate slow servers):
// - `within`: an event the code offers (a promise, a hook, `proc.exited`), with a deadline and a
//   message naming what did not happen. Prefer it, or an injected clock (tests/support/clock.ts).
// - `until`: polling, for a state that announces itself to no one in this process: another process's
//   state, a database row, a server's answer. The one reviewed polling loop of the suite.
// - `simulateDelay`: a delay that is itself the behaviour under test (a slow upstream, an outage of a
//   given length, load running for a while).

export interface UntilOptions {
  /**
   * What is waited for, as the failure says: "the replica READY", "six log rows"; a function is asked
   * at the failure (to say what was last seen).
   */
  what: string | (() => string);
  /** Gives up after this long (default 5 s). */
  timeoutMs?: number;
  /** Time between two probes (default 50 ms). */
  intervalMs?: number;
}

/**
 * Probes until `probe` gives a value other than `undefined` or `false`, and returns it. A probe that
 * throws is probed again (a server not up yet refuses connections); the last error is in the failure.
 * Polling because no event exists for it: the state is another process's, a database's, or a server's
 * that this process only sees by asking.
 */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { what, timeoutMs = 5000, intervalMs = 50 }: UntilOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}${lastError ? `: ${String(lastError)}` : ""}`,
      );
    await Bun.sleep(intervalMs);
  }
}

/** `event`, or a failure naming `what` if it has not happened within `timeoutMs`. */
export async function within<T>(event: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([event, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Lets `ms` pass on purpose: the delay is what the test is about (an upstream that answers slowly, an
 * outage that lasts, traffic that runs for a while), not a guess at how long something else takes.
 */
export function simulateDelay(ms: number): Promise<void> {
  return Bun.sleep(ms);
}
