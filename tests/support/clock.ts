// A clock a test moves forward instead of sleeping: real time plus whatever the test has passed over.
// Given to the inference runtime (its context, quota, budget and response caches), `advance(1100)` makes
// a cached context a second old at once, where a sleep of 1100 ms waited for it.

export interface TestClock {
  /** Milliseconds since the epoch, as `Date.now()`, plus every `advance` so far. */
  now: () => number;
  /** Moves the clock forward by `ms` (what the caches see as time passing). */
  advance(ms: number): void;
}

export function testClock(base: () => number = Date.now): TestClock {
  let offsetMs = 0;
  return {
    now: () => base() + offsetMs,
    advance(ms) {
      offsetMs += ms;
    },
  };
}
