// The OpenAI-compatible wire adapter's flavours, each only as it differs from OpenAI: the URL, how the
// key travels, headers from the credential's options, fields a service refuses, and the probe; the
// registry of wire adapters; the hosted price table's lookup.
import { expect, test } from "bun:test";
import { baseUrlOf, wireOf, wires } from "#adapters/upstream/wire/index.ts";
import { flavorOf, openAiCompatibleWire } from "#adapters/upstream/wire/openai-compatible.ts";
import { hostedModelPrice, listPrices, priceKeysOf } from "#services/spend/hosted-prices.ts";

const body = JSON.stringify({
  model: "gpt-4.1-mini",
  messages: [],
  stream: true,
  stream_options: { include_usage: true },
});

test("OpenAI: the key as a bearer token, organization and project headers from the credential's options", () => {
  const request = openAiCompatibleWire.request(
    {
      endpoint: "https://api.openai.com",
      model: "gpt-4.1-mini",
      apiKey: "sk-1",
      options: { project: "proj_1", organization: "org_1" },
    },
    "/v1/chat/completions",
    body,
    true,
  );
  expect(request).toEqual({
    url: "https://api.openai.com/v1/chat/completions",
    headers: { authorization: "Bearer sk-1", "OpenAI-Project": "proj_1", "OpenAI-Organization": "org_1" },
    // Nothing to change: sent as the lifecycle wrote it.
    body,
  });
});

test("Azure OpenAI: api-key header, the model as the deployment in the path, api-version (default and chosen)", () => {
  const target = { endpoint: "https://eu.openai.azure.com", model: "my deployment", apiKey: "az-1" };
  expect(flavorOf(target)).toBe("azure");
  const request = openAiCompatibleWire.request(target, "/v1/embeddings", body, false);
  expect(request.url).toBe(
    "https://eu.openai.azure.com/openai/deployments/my%20deployment/embeddings?api-version=2024-10-21",
  );
  expect(request.headers).toEqual({ "api-key": "az-1" });
  const chosen = {
    ...target,
    endpoint: "http://127.0.0.1:9",
    options: { flavor: "azure", api_version: "2025-01-01" },
  };
  expect(openAiCompatibleWire.request(chosen, "/v1/chat/completions", body, false).url).toBe(
    "http://127.0.0.1:9/openai/deployments/my%20deployment/chat/completions?api-version=2025-01-01",
  );
  expect(openAiCompatibleWire.probe(chosen)).toEqual({
    url: "http://127.0.0.1:9/openai/models?api-version=2025-01-01",
    headers: { "api-key": "az-1" },
  });
});

test("the services that copy OpenAI differ only where they say: Groq's path, Mistral's refused field, OpenRouter's headers", () => {
  const groq = openAiCompatibleWire.request(
    {
      endpoint: baseUrlOf("https://api.groq.com/openai/v1"),
      model: "llama-3.3-70b-versatile",
      apiKey: "gsk",
    },
    "/v1/chat/completions",
    body,
    true,
  );
  expect(groq.url).toBe("https://api.groq.com/openai/v1/chat/completions");
  expect(groq.headers).toEqual({ authorization: "Bearer gsk" });

  const mistral = openAiCompatibleWire.request(
    { endpoint: "https://api.mistral.ai", model: "mistral-small-latest", apiKey: "m" },
    "/v1/chat/completions",
    body,
    true,
  );
  expect(JSON.parse(mistral.body)).toEqual({ model: "mistral-small-latest", messages: [], stream: true });

  const openrouter = openAiCompatibleWire.request(
    {
      endpoint: "https://openrouter.ai/api",
      model: "openai/gpt-4o-mini",
      apiKey: "or",
      options: { title: "Acme" },
    },
    "/v1/chat/completions",
    body,
    false,
  );
  expect(openrouter.headers).toEqual({ authorization: "Bearer or", "X-Title": "Acme" });

  for (const endpoint of ["https://api.together.xyz", "https://api.deepseek.com"]) {
    expect(
      openAiCompatibleWire.request({ endpoint, model: "m", apiKey: "k" }, "/v1/embeddings", body, false).url,
    ).toBe(`${endpoint}/v1/embeddings`);
  }
  // A local server without a key (Ollama, vLLM, llama-server): no authorization header at all.
  const local = openAiCompatibleWire.request(
    { endpoint: "http://ollama:11434", model: "llama3.2" },
    "/v1/chat/completions",
    body,
    false,
  );
  expect(local.headers).toEqual({});
  expect(openAiCompatibleWire.probe({ endpoint: "http://vllm:8000", model: "m" }).url).toBe(
    "http://vllm:8000/v1/models",
  );
});

test("the registry maps engines to adapters; an engine the platform runs itself has none", () => {
  expect(wireOf("openai-compatible")).toBe(openAiCompatibleWire);
  expect(wireOf("llama.cpp")).toBeUndefined();
  expect(wires["openai-compatible"]?.id).toBe("openai-compatible");
  expect(baseUrlOf("http://h:1/v1/")).toBe("http://h:1");
  expect(baseUrlOf("http://h:1")).toBe("http://h:1");
});

test("the hosted price table: dated snapshots and aliases find the model's list price; the organization's own wins", () => {
  expect(priceKeysOf("gpt-4o-mini-2024-07-18")).toContain("gpt-4o-mini");
  expect(priceKeysOf("claude-sonnet-4-20250514")).toContain("claude-sonnet-4");
  expect(priceKeysOf("models/gemini-2.5-flash")).toContain("gemini-2.5-flash");
  expect(hostedModelPrice("claude-3-5-haiku-latest", {})).toMatchObject({
    input_price_per_million: listPrices["claude-3-5-haiku"]?.input_price_per_million,
  });
  expect(
    hostedModelPrice("gpt-4.1-mini", {
      model_prices: { "gpt-4.1-mini": { input_price_per_million: 9, output_price_per_million: 9 } },
    }),
  ).toEqual({
    input_price_per_million: 9,
    output_price_per_million: 9,
    cached_input_price_per_million: null,
    estimated_cost_per_hour: null,
  });
  expect(hostedModelPrice("someone-elses-model", {})).toBeUndefined();
});
