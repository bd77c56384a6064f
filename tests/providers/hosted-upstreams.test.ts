// Hosted upstreams end to end: a self-hosted llama.cpp deployment (the tiny model) and hosted ones on an
// `external` pool behind one API key. The hosted APIs are local fakes (tests/fakes/hosted-openai) that
// refuse a request without the right key and record the model they were asked for. Covered: named
// credentials of the external provider configuration reaching the upstream (Bearer, Azure's api-key,
// api-version and deployment path), the deployment's inference_model sent upstream (an alias), every
// door (chat streamed and not with the openai SDK, completions, responses, embeddings, messages with
// the Anthropic SDK), the upstream's 401 as the platform's 502 `upstream_auth_failed`, the credential
// in no answer, log, audit entry or dashboard page, fallbacks self-hosted → hosted and back, and the
// hosted price table feeding each request's cost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ChatCompletion } from "#contracts/openai/chat.ts";
import type { GET as hostedPricesRoute } from "#routes/filtration/management/config/hosted-prices.ts";
import type {
  GET as providersRoute,
  POST as saveProvidersRoute,
} from "#routes/filtration/management/config/providers.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as deploymentsRoute } from "#routes/orchestration/deployment/deployments.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { type HostedFake, hostedAnswer, startHostedFake } from "../fakes/hosted-openai/server.ts";
import { loggedRequest } from "../inference/support.ts";
import { startTinyDeployment, type TinyDeployment } from "../inference/tiny-deployment.ts";
import { createPool, eventually } from "../orchestration/support.ts";
import { call, type ErrorBody, gatewayHandler, jsonBody } from "../support/app.ts";
import { signInToDashboard } from "../support/dashboard.ts";

// Long and unusual, so finding them anywhere is never a coincidence.
const prodKey = `sk-proj-PROD${crypto.randomUUID().replaceAll("-", "")}`;
const researchKey = `sk-proj-RSRCH${crypto.randomUUID().replaceAll("-", "")}`;
const azureKey = `az${crypto.randomUUID().replaceAll("-", "")}`;
const secrets = [prodKey, researchKey, azureKey];

let tiny: TinyDeployment;
let openaiFake: HostedFake;
let azureFake: HostedFake;
let externalPool: string;
const ids: Record<string, string> = {};
let stdout = "";
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  // Everything the processes log, at the most talkative level, is kept to be searched for the keys.
  process.env.TEST_LOG_LEVEL = "debug";
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    return true;
  }) as typeof process.stdout.write;
  openaiFake = startHostedFake({ keys: [prodKey, researchKey] });
  azureFake = startHostedFake({ keys: [azureKey], azure: { apiVersion: "2024-10-21" } });
  tiny = await startTinyDeployment("tiny-local");
  const o = tiny.o;
  const saved = await call(o.filtration, "POST", "/management/config/providers", {
    token: o.token,
    body: {
      provider: "external",
      credentials: { "openai-prod": prodKey, "openai-research": researchKey, "azure-eu": azureKey },
      settings: { credential_options: { "azure-eu": { flavor: "azure", api_version: "2024-10-21" } } },
    },
  });
  if (saved.status !== 200) throw new Error(`provider config: ${saved.status} ${JSON.stringify(saved.body)}`);
  externalPool = (await createPool(o, { provider: "external", name: "hosted" })).pool_id as string;
  await Promise.all([
    deployHosted("support-bot", openaiFake, "openai-prod", "gpt-4.1-mini"),
    deployHosted("research-bot", openaiFake, "openai-research", "gpt-4o-mini"),
    deployHosted("azure-bot", azureFake, "azure-eu", "gpt4o-mini-eu"),
  ]);
  ids["tiny-local"] = (await deploymentId("tiny-local")) as string;
}, 120_000);

afterAll(async () => {
  await tiny?.close();
  openaiFake?.stop();
  azureFake?.stop();
  process.stdout.write = write;
  delete process.env.TEST_LOG_LEVEL;
}, 60_000);

/** A hosted deployment (no image, no key inside it), RUNNING once the upstream answers its probe with the key. */
async function deployHosted(name: string, fake: HostedFake, credential: string, model: string) {
  const o = tiny.o;
  const res = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: {
      model_name: name,
      pool_id: externalPool,
      engine: "openai-compatible",
      inference_model: model,
      configuration: { endpoints: [fake.url], credential },
    },
  });
  if (res.status !== 201) throw new Error(`deploy ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  const id = res.body.deployment_id;
  ids[name] = id;
  await eventually(
    async () =>
      (await call<typeof statusRoute>(o.orchestration, "GET", `/deployment/status/${id}`, { token: o.token }))
        .body.status === "RUNNING",
    30_000,
    `${name} RUNNING`,
  );
}

const openai = () => new OpenAI({ baseURL: tiny.baseUrl, apiKey: tiny.apiKey, maxRetries: 0 });
const anthropic = () =>
  new Anthropic({ baseURL: tiny.baseUrl.replace(/\/v1$/, ""), apiKey: tiny.apiKey, maxRetries: 0 });

const routing = (deployment: string, fallbacks: string[]) =>
  call(tiny.o.filtration, "POST", "/management/config/routing", {
    token: tiny.o.token,
    body: { deployment_id: ids[deployment] ?? deployment, config: { fallbacks } },
  });

test("the credential's key reaches the upstream as a bearer token, and the upstream is asked for inference_model", async () => {
  const before = openaiFake.received.length;
  const { data, response } = await openai()
    .chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }] })
    .withResponse();
  expect(data.choices[0]?.message.content).toBe(hostedAnswer);
  // The caller keeps speaking of its deployment; the upstream saw the model behind the alias.
  expect(data.model).toBe("support-bot");
  expect(response.headers.get("x-served-by")).toBeNull();
  const got = openaiFake.received.slice(before);
  expect(got).toHaveLength(1);
  expect(got[0]).toMatchObject({ path: "/v1/chat/completions", model: "gpt-4.1-mini", key: prodKey });

  // Two credentials of one kind: the other deployment's requests carry the other project's key.
  await openai().chat.completions.create({
    model: "research-bot",
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(openaiFake.received.at(-1)).toMatchObject({ model: "gpt-4o-mini", key: researchKey });

  const stream = await openai().chat.completions.create({
    model: "support-bot",
    messages: [{ role: "user", content: "Hi" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    expect(chunk.model).toBe("support-bot");
    text += chunk.choices[0]?.delta?.content ?? "";
    usage = chunk.usage ?? usage;
  }
  expect(text).toBe(hostedAnswer);
  expect(usage?.total_tokens).toBe(15);
  expect(openaiFake.received.at(-1)).toMatchObject({ model: "gpt-4.1-mini", key: prodKey });
  expect(openaiFake.received.at(-1)?.body.stream).toBe(true);
});

test("every door reaches the hosted upstream: completions, responses, embeddings, messages (Anthropic SDK)", async () => {
  const client = openai();
  const completion = await client.completions.create({ model: "support-bot", prompt: "Hi" });
  expect(completion.choices[0]?.text).toBe(hostedAnswer);
  expect(openaiFake.received.at(-1)).toMatchObject({ path: "/v1/chat/completions", model: "gpt-4.1-mini" });

  const answered = await client.responses.create({ model: "support-bot", input: "Hi" });
  expect(answered.output_text).toBe(hostedAnswer);
  expect(answered.model).toBe("support-bot");
  expect(openaiFake.received.at(-1)).toMatchObject({ model: "gpt-4.1-mini", key: prodKey });

  const vectors = await client.embeddings.create({ model: "support-bot", input: ["a", "b"] });
  expect(vectors.data).toHaveLength(2);
  expect(openaiFake.received.at(-1)).toMatchObject({ path: "/v1/embeddings", model: "gpt-4.1-mini" });

  const message = await anthropic().messages.create({
    model: "support-bot",
    max_tokens: 64,
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(message.content[0]).toMatchObject({ type: "text", text: hostedAnswer });
  expect(openaiFake.received.at(-1)).toMatchObject({ model: "gpt-4.1-mini", key: prodKey });

  const streamed = anthropic().messages.stream({
    model: "support-bot",
    max_tokens: 64,
    messages: [{ role: "user", content: "Hi" }],
  });
  expect((await streamed.finalText()).trim()).toBe(hostedAnswer);

  // Counting tokens falls back to a one-token completion (a hosted API has no /tokenize).
  const counted = await anthropic().messages.countTokens({
    model: "support-bot",
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(counted.input_tokens).toBe(10);
});

test("Azure OpenAI: the api-key header, the api-version query and the deployment in the path", async () => {
  expect(azureFake.probes).toBeGreaterThan(0);
  const client = openai();
  const data = await client.chat.completions.create({
    model: "azure-bot",
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(data.choices[0]?.message.content).toBe(hostedAnswer);
  expect(azureFake.received.at(-1)).toMatchObject({
    path: "/openai/deployments/gpt4o-mini-eu/chat/completions",
    model: "gpt4o-mini-eu",
    key: azureKey,
    apiVersion: "2024-10-21",
  });
  let text = "";
  for await (const chunk of await client.chat.completions.create({
    model: "azure-bot",
    messages: [{ role: "user", content: "Hi" }],
    stream: true,
  }))
    text += chunk.choices[0]?.delta?.content ?? "";
  expect(text).toBe(hostedAnswer);
  await client.embeddings.create({ model: "azure-bot", input: "a" });
  expect(azureFake.received.at(-1)?.path).toBe("/openai/deployments/gpt4o-mini-eu/embeddings");
});

test("a key in the deployment is refused (400 pointing at the credential), as is a credential that is not stored", async () => {
  const o = tiny.o;
  const deploy = (configuration: Record<string, unknown>) =>
    call<ErrorBody>(o.orchestration, "POST", "/deployment/deploy", {
      token: o.token,
      body: { model_name: "keyed", pool_id: externalPool, engine: "openai-compatible", configuration },
    });
  const keyed = await deploy({ endpoints: [openaiFake.url], api_key: "sk-inline" });
  expect(keyed.status).toBe(400);
  expect(keyed.body.error.details?.fields).toContainEqual({
    field: "configuration.api_key",
    message: expect.stringContaining("configuration.credential"),
  });
  const unknown = await deploy({ endpoints: [openaiFake.url], credential: "nobody" });
  expect(unknown.status).toBe(400);
  expect(keyed.body.error.details?.fields?.map((f) => f.field)).not.toContain("image");
  expect(unknown.body.error.details?.fields?.map((f) => f.field)).toEqual(["configuration.credential"]);
});

test("the upstream refusing the key is the platform's 502 upstream_auth_failed, in both doors' shapes, counted per deployment", async () => {
  openaiFake.keys.delete(researchKey);
  try {
    const error = await openai()
      .chat.completions.create({ model: "research-bot", messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const refused = error as InstanceType<typeof OpenAI.APIError>;
    expect(refused.status).toBe(502);
    expect(refused.code).toBe("upstream_auth_failed");
    expect(refused.code).not.toBe("invalid_api_key");

    const streamed = await openai()
      .chat.completions.create({
        model: "research-bot",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      })
      .catch((e: unknown) => e);
    expect((streamed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);

    const viaMessages = await anthropic()
      .messages.create({ model: "research-bot", max_tokens: 8, messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(viaMessages).toBeInstanceOf(Anthropic.APIError);
    const anthropicError = viaMessages as InstanceType<typeof Anthropic.APIError>;
    expect(anthropicError.status).toBe(502);
    expect(anthropicError.error).toMatchObject({
      type: "error",
      error: { type: "api_error", message: expect.stringContaining("upstream_auth_failed") },
    });

    const raw = await fetch(`${tiny.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tiny.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "research-bot", messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(raw.status).toBe(502);
    const row = await loggedRequest(tiny, raw.headers.get("x-request-id") as string);
    expect(row).toMatchObject({ status: 502, errorCode: "upstream_auth_failed" });
    const metrics = await tiny.o.t.app.inference?.metrics.registry.metrics();
    expect(metrics).toMatch(
      new RegExp(
        `llm_upstream_auth_failures_total\\{deployment="research-bot",deployment_id="${ids["research-bot"]}"\\} [4-9]`,
      ),
    );
  } finally {
    openaiFake.keys.add(researchKey);
  }
});

test("fallbacks: hosted → self-hosted when the upstream fails, self-hosted → hosted when it is stopped; each costs its own price", async () => {
  const o = tiny.o;
  // The organization's own price for one hosted model overrides the shipped list price.
  const prices = await call<typeof saveProvidersRoute>(o.filtration, "POST", "/management/config/providers", {
    token: o.token,
    body: {
      provider: "external",
      settings: {
        credential_options: { "azure-eu": { flavor: "azure", api_version: "2024-10-21" } },
        model_prices: { "gpt-4.1-mini": { input_price_per_million: 1, output_price_per_million: 2 } },
      },
    },
  });
  expect(prices.status).toBe(200);
  const badPrices = await call<ErrorBody>(o.filtration, "POST", "/management/config/providers", {
    token: o.token,
    body: {
      provider: "external",
      settings: { model_prices: { "gpt-4.1-mini": { input_price_per_million: -1 } } },
    },
  });
  expect(badPrices.status).toBe(400);
  const table = await call<typeof hostedPricesRoute>(
    o.filtration,
    "GET",
    "/management/config/hosted-prices",
    { token: o.token },
  );
  expect(table.status).toBe(200);
  const rows = table.body.prices;
  expect(rows.find((r) => r.model === "gpt-4.1-mini")).toMatchObject({
    source: "organization",
    input_price_per_million: 1,
  });
  expect(rows.find((r) => r.model === "gpt-4o-mini")).toMatchObject({
    source: "list",
    input_price_per_million: 0.15,
  });

  // Hosted → self-hosted: the upstream answers 500.
  expect((await routing("support-bot", ["tiny-local"])).status).toBe(200);
  openaiFake.up = false;
  try {
    const served = await eventually(async () => {
      const { data, response } = await openai()
        .chat.completions.create({
          model: "support-bot",
          messages: [{ role: "user", content: "Hi" }],
          max_tokens: 4,
        })
        .withResponse();
      return response.headers.get("x-served-by") === "tiny-local" ? data : undefined;
    }, 10_000);
    expect(served.model).toBe("support-bot");
    expect(served.choices[0]?.message.content).not.toBe(hostedAnswer);
  } finally {
    openaiFake.up = true;
  }

  // Self-hosted → hosted: the llama.cpp deployment is stopped.
  expect((await routing("tiny-local", ["support-bot"])).status).toBe(200);
  await call(o.orchestration, "POST", "/deployment/terminate", {
    token: o.token,
    body: { deployment_id: ids["tiny-local"] },
  });
  const res = await eventually(async () => {
    const r = await fetch(`${tiny.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${tiny.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny-local",
        messages: [{ role: "user", content: "Hi" }],
        max_tokens: 4,
      }),
    });
    if (r.headers.get("x-served-by") === "support-bot") return r;
    await r.body?.cancel();
    return undefined;
  }, 20_000);
  expect(res.status).toBe(200);
  expect((await jsonBody<ChatCompletion>(res)).model).toBe("tiny-local");
  expect(openaiFake.received.at(-1)).toMatchObject({ model: "gpt-4.1-mini", key: prodKey });
  // 10 prompt and 5 completion tokens at the organization's 1 and 2 per million (no cached price set).
  const row = await loggedRequest(tiny, res.headers.get("x-request-id") as string);
  expect(row).toMatchObject({ servedBy: "support-bot", status: 200 });
  expect(row?.cost).toBeCloseTo((10 * 1 + 5 * 2) / 1e6, 12);

  // research-bot has no price of its own: the shipped list price of gpt-4o-mini (0.15 in, 0.075
  // cached, 0.6 out), with the 4 cached prompt tokens at the cached price.
  const listed = await fetch(`${tiny.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${tiny.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "research-bot", messages: [{ role: "user", content: "Hi" }] }),
  });
  expect(listed.status).toBe(200);
  const listedRow = await loggedRequest(tiny, listed.headers.get("x-request-id") as string);
  expect(listedRow?.cost).toBeCloseTo((6 * 0.15 + 4 * 0.075 + 5 * 0.6) / 1e6, 12);
}, 60_000);

async function deploymentId(name: string): Promise<string | undefined> {
  const list = await call<typeof deploymentsRoute>(tiny.o.orchestration, "GET", "/deployment/deployments", {
    token: tiny.o.token,
  });
  return list.body.deployments.find((d) => d.model_name === name)?.deployment_id;
}

test("the keys appear in no API answer, log line, audit entry or dashboard page", async () => {
  const o = tiny.o;
  const answers: unknown[] = [];
  /** A GET whose answer is kept for the search below; `R` names the answer where the test reads it. */
  const get = async <R = unknown>(handle: typeof o.filtration, path: string) => {
    const res = await call<R>(handle, "GET", path, { token: o.token });
    answers.push(res.body);
    return res;
  };
  const providers = await get<typeof providersRoute>(o.filtration, "/management/config/providers");
  const external = providers.body.providers.find((p) => p.provider === "external");
  // Named, masked: the names are there, the keys are not.
  expect(Object.keys(external?.credentials ?? {}).sort()).toEqual([
    "azure-eu",
    "openai-prod",
    "openai-research",
  ]);
  for (const id of Object.values(ids)) {
    await get(o.orchestration, `/deployment/status/${id}`);
    await get(o.filtration, `/management/deployments/${id}`);
    await get(o.filtration, `/management/deployments/${id}/logs`);
  }
  await get(o.orchestration, "/deployment/deployments");
  const audit = await get(o.filtration, "/audit/logs?limit=200");
  expect(audit.status).toBe(200);
  expect(JSON.stringify(audit.body)).toContain("provider_config.update");

  const dashboard = await gatewayHandler(o.t.app, "dashboard");
  const { cookie } = await signInToDashboard(dashboard.handle);
  const pages: string[] = [];
  for (const path of ["/providers", "/providers/external", `/deployments/${ids["support-bot"]}`, "/audit"]) {
    const res = await dashboard.handle(new Request(`http://localhost${path}`, { headers: { cookie } }));
    pages.push(`${res.status} ${await res.text()}`);
  }
  expect(pages[0]?.startsWith("200")).toBe(true);

  // The logger writes a few milliseconds late: the last request's line shows it has flushed.
  const last = await fetch(`${tiny.baseUrl}/models`, { headers: { authorization: `Bearer ${tiny.apiKey}` } });
  const lastId = last.headers.get("x-request-id") as string;
  await last.body?.cancel();
  await eventually(async () => stdout.includes(lastId) || undefined, 5000, "the log flushed");
  const everything = [JSON.stringify(answers), ...pages, stdout].join("\n");
  expect(stdout.length).toBeGreaterThan(0);
  // The refused credential was logged, naming the deployment (and not the key, checked below).
  const warning = stdout.split("\n").find((line) => line.includes("refused the platform's credential"));
  expect(JSON.parse(warning ?? "{}")).toMatchObject({
    level: "warn",
    deployment: "research-bot",
    status: 401,
  });
  for (const secret of secrets) expect(everything).not.toContain(secret);
});
