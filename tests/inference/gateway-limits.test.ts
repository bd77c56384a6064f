// Rate limits as a client meets them: exactly N of 200 concurrent requests pass a limit of N through
// the gateway, with in-process counters and with Redis, and one limit holds across two gateway
// processes that share Redis (each running apart, resolving contexts over HTTP from filtration).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { StoreFailureGuard } from "#core/ports/rate-limiter.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { jsonBody } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";
import {
  chat,
  createKey,
  filtrationOverHttp,
  type GatewayTest,
  redisUrl,
  setPolicy,
  startGatewayTest,
} from "./support.ts";

const N = 37;

async function countPassing(g: GatewayTest, total: number, targets = [g.url]) {
  const statuses = await Promise.all(
    Array.from({ length: total }, async (_, i) => {
      const response = await chat({ ...g, url: targets[i % targets.length] as string });
      await response.arrayBuffer();
      return response.status;
    }),
  );
  return {
    passed: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
  };
}

for (const mode of ["in process", "Redis"] as const) {
  describe(`limits with ${mode} counters`, () => {
    let g: GatewayTest;
    beforeAll(async () => {
      g = await startGatewayTest({ redis: mode === "Redis" });
      await setPolicy(g, "rate_limit", { requests_per_minute: N });
    }, 30_000);
    afterAll(() => g.close(), 30_000);

    test.skipIf(mode === "Redis" && !redisUrl)(
      `exactly ${N} of 200 concurrent requests pass a limit of ${N} per minute`,
      async () => {
        const limiter = g.runtime.limiter;
        const counters = limiter instanceof StoreFailureGuard ? limiter.inner : limiter;
        expect(counters.constructor.name).toBe(mode === "Redis" ? "RedisLimiter" : "InProcessLimiter");
        const { passed, limited } = await countPassing(g, 200);
        expect(passed).toBe(N);
        expect(limited).toBe(200 - N);
      },
      30_000,
    );
  });
}

describe("two gateway processes sharing Redis", () => {
  let g: GatewayTest;
  let filtration: Listener;
  const gateways: RunningPlatform[] = [];
  const temp = tempDirs();

  beforeAll(async () => {
    if (!redisUrl) return;
    g = await startGatewayTest();
    filtration = listen(g.o.t.app, "filtration", 0, await buildHttpGateway(g.o.t.app, "filtration"));
    await setPolicy(g, "rate_limit", { requests_per_minute: N });
    const env = {
      SERVICES: "inference",
      FILTRATION_URL: `http://127.0.0.1:${filtration.port}`,
      INTERNAL_API_KEY: g.o.t.config.internalApiKey,
      REDIS_URL: redisUrl,
      ...(g.o.t.database.url ? { DATABASE_URL: g.o.t.database.url } : {}),
    };
    for (let i = 0; i < 2; i++) {
      gateways.push(await runPlatform({ ...env, DATA_DIR: temp.make("llmp-gw-") }));
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((p) => p.stop()));
    await filtration?.stop(1000);
    await g?.close();
    temp.remove();
  }, 30_000);

  test.skipIf(!redisUrl)(
    `enforce one limit: exactly ${N} of 200 pass, spread over both`,
    async () => {
      const urls = gateways.map((p) => `http://127.0.0.1:${p.ports.inference}`);
      const { passed, limited } = await countPassing(g, 200, urls);
      expect(passed).toBe(N);
      expect(limited).toBe(200 - N);
    },
    30_000,
  );
});

describe("the filtration side unreachable (gateway running apart)", () => {
  let g: GatewayTest;
  let filtration: Listener;
  beforeAll(async () => {
    g = await startGatewayTest({
      port: filtrationOverHttp(
        (l) => {
          filtration = l;
        },
        { timeoutMs: 500 },
      ),
    });
  }, 30_000);
  afterAll(() => g.close(), 30_000);

  test("cached contexts keep serving; a key not seen before fails closed with 503", async () => {
    const fresh = await createKey(g.o);
    expect((await chat(g)).status).toBe(200);
    await filtration.stop(0);
    g.clock.advance(1100); // past the context's one-second lifetime: it must be revalidated, and cannot be
    for (let i = 0; i < 3; i++) expect((await chat(g)).status).toBe(200);
    const refused = await chat(g, {}, fresh);
    expect(refused.status).toBe(503);
    const body = await jsonBody<OpenAIError>(refused);
    expect(body.error.code).toBe("service_unavailable");
    expect(body.error.message).not.toContain("127.0.0.1");
  }, 20_000);
});
