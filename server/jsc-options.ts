// JavaScriptCore options the platform's process starts with. JSC reads BUN_JSC_* from the environment
// once, when the process starts, so they cannot be set from here: package.json "start" and
// deploy/Dockerfile set them (tests/foundation/jsc-options.test.ts checks both agree with this
// list), and bench/gateway.ts and the tests' runPlatform start the platform with them.
//
// heapGrowthMaxIncrease: on machines with 16 GB of RAM or more, JSC lets the heap grow to about
// (1 + this) times its size after the last full collection before the next one; Bun sets 2.0, so
// about 3x. The gateway's garbage outlives a request's awaits and is only freed by full collections,
// so the resident size followed that 3x. 1 (2x) holds the PostgreSQL platform under bench/gateway.ts
// at 173-190 MB (peak 193) instead of 206-222 (peak 237-269) for the same CPU per request; 0.5 held it
// at 146 MB but cost 25-45 % more CPU a request in full collections (docs/performance.md, "Resident
// memory under load").
export const jscOptions = { BUN_JSC_heapGrowthMaxIncrease: "1" } as const;
