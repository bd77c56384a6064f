// An inference gateway running apart (SERVICES=inference), its FILTRATION_URL answering nothing.
// On the PostgreSQL it shares with the filtration side it needs nothing from that side: keys,
// policies, templates and quota are read from the database behind its caches, and logs, usage and
// the key's last use are written there. On a database of its own (embedded) it can only ask
// FILTRATION_URL, so a key it has not seen fails closed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { apiKeys } from "#db/schema/index.ts";
import type { POST as createPromptRoute } from "#routes/filtration/management/prompts/index.ts";
import { call, jsonBody } from "../support/app.ts";
import { usingPostgres } from "../support/database.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";
import { chat, createKey, type GatewayTest, loggedRequest, setPolicy, startGatewayTest } from "./support.ts";

/** A port nothing listens on. */
function closedPort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const { port } = server;
  server.stop(true);
  return port as number;
}

describe("an inference gateway apart whose filtration side answers nothing", () => {
  let g: GatewayTest;
  let gateway: RunningPlatform | undefined;
  const temp = tempDirs();
  beforeAll(async () => {
    g = await startGatewayTest();
    const template = await call<typeof createPromptRoute>(g.o.filtration, "POST", "/management/prompts", {
      token: g.o.token,
      body: { name: "apart", system_prompt: "You are apart.", user_template: "Q: {{input}}" },
    });
    expect(template.status).toBe(201);
    await setPolicy(g, "prompt", { template_id: template.body.id });
    gateway = await runPlatform({
      SERVICES: "inference",
      FILTRATION_URL: `http://127.0.0.1:${closedPort()}`,
      INTERNAL_API_KEY: g.o.t.config.internalApiKey,
      DATA_DIR: temp.make("llmp-apart-"),
      ...(g.o.t.database.url ? { DATABASE_URL: g.o.t.database.url } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    if (gateway && gateway.proc.exitCode === null) await gateway.stop("SIGKILL");
    await g?.close();
    temp.remove();
  }, 30_000);

  test(usingPostgres
    ? "on the shared PostgreSQL: serves a new key with the template applied, and writes its log and last use"
    : "on a database of its own: a key it has not seen fails closed with 503", async () => {
    const key = await createKey(g.o);
    const target = { ...g, url: `http://127.0.0.1:${gateway?.ports.inference}` };
    const response = await chat(target, { messages: [{ role: "user", content: "hello" }] }, key);
    if (!usingPostgres) {
      expect(response.status).toBe(503);
      expect((await jsonBody<OpenAIError>(response)).error.code).toBe("service_unavailable");
      return;
    }
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(g.stub.received.at(-1)?.messages).toEqual([
      { role: "system", content: "You are apart." },
      { role: "user", content: "Q: hello" },
    ]);
    const row = await loggedRequest(g, response.headers.get("x-request-id") as string);
    expect(row?.status).toBe(200);
    expect(row?.deploymentId).toBe(g.deploymentId);
    // The key's last use is noted in the gateway's memory and written by the time it has stopped.
    expect(await gateway?.stop("SIGTERM")).toBe(0);
    const [used] = await g.o.t.app.db
      .select({ at: apiKeys.lastUsedAt })
      .from(apiKeys)
      .where(eq(apiKeys.keyHash, new Bun.CryptoHasher("sha256").update(key).digest("hex")));
    expect(used?.at).toBeInstanceOf(Date);
  }, 30_000);
});
