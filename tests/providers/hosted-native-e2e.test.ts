// MERGE NOTE: this file needs the `hosted` branch's plumbing (adapters/upstream/wire/index.ts registering
// anthropicWire and geminiWire, named credentials, inference_model sent upstream, 502 upstream_auth_failed).
// On a branch without adapters/upstream/wire/index.ts every test here is skipped; once merged it must run
// and pass. (The skip is on that file only: nothing else hides a failure.)
//
// Anthropic and Gemini upstreams end to end through the inference gateway: `external` deployments with
// engine `anthropic` / `gemini`, their credentials named from the external provider configuration and
// their inference_model as the upstream's model, in front of the local fakes of Anthropic's Messages API
// and Google's Gemini API (tests/fakes/anthropic, tests/fakes/gemini; they check key and model). Called
// through chat (streamed and not, tools, structured output), completions, responses and messages (the
// openai and @anthropic-ai/sdk clients), embeddings where the upstream has them, and an upstream that
// refuses the platform's key answering the caller as 502 `upstream_auth_failed`.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { withInference } from "#server/compose.ts";
import { listen } from "#server/http/listen.ts";
import { startReconciler } from "#services/orchestration/reconciler.ts";
import { weather } from "../engines/worker-support.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../fakes/anthropic/server.ts";
import { type FakeGemini, startFakeGemini } from "../fakes/gemini/server.ts";
import {
  createPool,
  eventually,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { inProcessInference } from "../support/inference.ts";

const plumbed = existsSync(join(import.meta.dir, "../../adapters/upstream/wire/index.ts"));

describe.skipIf(!plumbed)("Anthropic and Gemini upstreams through the gateway", () => {
  let o: OrchestrationTest;
  let claude: FakeAnthropic;
  let gemini: FakeGemini;
  let baseUrl = "";
  let apiKey = "";
  let close: () => Promise<void> = async () => {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    claude = startFakeAnthropic({ model: "claude-sonnet-4-5" });
    gemini = startFakeGemini({ model: "gemini-2.5-flash", embeddingModel: "gemini-embedding-001" });
    o = await startOrchestrationTest();
    o.t.app = withInference(o.t.app, inProcessInference(o.t.app));
    const inference = listen(o.t.app, "inference", 0, await buildHttpGateway(o.t.app, "inference"));
    const reconciler = startReconciler(o.t.app, { intervalMs: 200, logPumpMs: 100, restartBaseMs: 200 });
    close = async () => {
      await reconciler.stop();
      await o.t.app.inference?.close();
      await inference.stop(1000);
      await o.t.close();
    };
    baseUrl = `http://127.0.0.1:${inference.port}/v1`;
    const saved = await call(o.filtration, "POST", "/management/config/providers", {
      token: o.token,
      body: {
        provider: "external",
        credentials: { "anthropic-main": claude.apiKey, "google-main": gemini.apiKey },
      },
    });
    if (saved.status !== 200)
      throw new Error(`provider config: ${saved.status} ${JSON.stringify(saved.body)}`);
    const pool = (await createPool(o, { provider: "external", name: "hosted-native" })).pool_id;
    const deploy = async (name: string, engine: string, url: string, credential: string, model: string) => {
      const res = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
        token: o.token,
        body: {
          model_name: name,
          pool_id: pool,
          engine,
          inference_model: model,
          configuration: { endpoints: [url], credential },
        },
      });
      if (res.status !== 201) throw new Error(`deploy ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[name] = res.body.deployment_id;
      await eventually(
        async () =>
          (
            await call<typeof statusRoute>(o.orchestration, "GET", `/deployment/status/${ids[name]}`, {
              token: o.token,
            })
          ).body.status === "RUNNING",
        30_000,
        `${name} RUNNING`,
      );
    };
    await Promise.all([
      deploy("claude-bot", "anthropic", claude.baseUrl, "anthropic-main", claude.model),
      deploy("gemini-bot", "gemini", gemini.baseUrl, "google-main", gemini.model),
      deploy("gemini-embed", "gemini", gemini.baseUrl, "google-main", gemini.embeddingModel),
    ]);
    const key = await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
      token: o.token,
      body: { name: "native" },
    });
    if (key.status !== 201) throw new Error(`api key: ${key.status} ${JSON.stringify(key.body)}`);
    apiKey = key.body.key;
  }, 120_000);

  afterAll(async () => {
    await close();
    claude?.stop();
    gemini?.stop();
  }, 60_000);

  const openai = () => new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0 });
  const anthropic = () => new Anthropic({ baseURL: baseUrl.replace(/\/v1$/, ""), apiKey, maxRetries: 0 });
  const verdict = {
    type: "object",
    properties: { answer: { type: "string", enum: ["yes", "no"] } },
    required: ["answer"],
    additionalProperties: false,
  };

  describe.each([
    ["claude-bot", () => ({ model: claude.model, key: claude.requests.at(-1)?.headers["x-api-key"] })],
    [
      "gemini-bot",
      () => ({ model: gemini.requests.at(-1)?.url.match(/models\/([^:]+):/)?.[1], key: gemini.apiKey }),
    ],
  ])("%s", (deployment, upstreamSaw) => {
    test("chat, plain and streamed with usage: the upstream is asked for inference_model with the credential", async () => {
      const answer = await openai().chat.completions.create({
        model: deployment,
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(answer.choices[0]?.message.content).toBe("You said: Hi");
      expect(answer.model).toBe(deployment);
      const saw = upstreamSaw();
      expect(saw.model).toBe(deployment === "claude-bot" ? claude.model : gemini.model);
      expect(saw.key).toBe(deployment === "claude-bot" ? claude.apiKey : gemini.apiKey);

      const stream = await openai().chat.completions.create({
        model: deployment,
        messages: [{ role: "user", content: "Hi you" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        usage = chunk.usage ?? usage;
      }
      expect(text).toBe("You said: Hi you");
      expect(usage?.total_tokens).toBeGreaterThan(0);
    });

    test("tools, plain and streamed, and structured output", async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: "function", function: { name: "get_weather", parameters: weather } },
      ];
      const called = await openai().chat.completions.create({
        model: deployment,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        tools,
        tool_choice: "required",
      });
      expect(called.choices[0]?.finish_reason).toBe("tool_calls");
      const call0 = called.choices[0]?.message.tool_calls?.[0];
      expect(call0?.type === "function" && JSON.parse(call0.function.arguments)).toEqual({
        city: "Paris",
        unit: "celsius",
      });
      const streamed = await openai()
        .chat.completions.stream({
          model: deployment,
          messages: [{ role: "user", content: "Weather in Paris?" }],
          tools,
          tool_choice: "required",
        })
        .finalChatCompletion();
      expect(streamed.choices[0]?.message.tool_calls?.[0]?.type).toBe("function");
      const structured = await openai().chat.completions.create({
        model: deployment,
        messages: [{ role: "user", content: "Is it?" }],
        response_format: {
          type: "json_schema",
          json_schema: { name: "verdict", schema: verdict, strict: true },
        },
      });
      expect(JSON.parse(structured.choices[0]?.message.content ?? "")).toEqual({ answer: "yes" });
    });

    test("a tool's result goes back in the next turn (Gemini's thought signature with it)", async () => {
      gemini.requireSignatures = true;
      try {
        const tools: OpenAI.ChatCompletionTool[] = [
          { type: "function", function: { name: "get_weather", parameters: weather } },
        ];
        const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
        const first = await openai().chat.completions.create({ model: deployment, messages: ask, tools });
        const message = first.choices[0]?.message;
        const id = message?.tool_calls?.[0]?.id ?? "";
        const next = await openai().chat.completions.create({
          model: deployment,
          messages: [
            ...ask,
            ...(message ? [message] : []),
            { role: "tool", tool_call_id: id, content: "sunny" },
          ],
          tools,
        });
        expect(next.choices[0]?.message.content).toBe("It is sunny in Paris.");
      } finally {
        gemini.requireSignatures = false;
      }
    });

    test("completions, responses and messages (the Anthropic SDK) reach it", async () => {
      const completion = await openai().completions.create({ model: deployment, prompt: "Hi" });
      expect(completion.choices[0]?.text).toBe("You said: Hi");
      const response = await openai().responses.create({ model: deployment, input: "Hi" });
      expect(response.output_text).toBe("You said: Hi");
      const message = await anthropic().messages.create({
        model: deployment,
        max_tokens: 64,
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(message.content[0]).toMatchObject({ type: "text", text: "You said: Hi" });
      const text = await anthropic()
        .messages.stream({ model: deployment, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] })
        .finalText();
      expect(text).toBe("You said: Hi");
    });
  });

  test("embeddings through Gemini's batchEmbedContents; Anthropic has none (400)", async () => {
    const vectors = await openai().embeddings.create({
      model: "gemini-embed",
      input: ["a", "b"],
      encoding_format: "float",
    });
    expect(vectors.data).toHaveLength(2);
    expect(gemini.requests.at(-1)?.method).toBe("batchEmbedContents");
    const refused = await openai()
      .embeddings.create({ model: "claude-bot", input: "a" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
  });

  test("an upstream refusing the platform's key is the caller's 502 upstream_auth_failed", async () => {
    for (const fake of [claude, gemini]) {
      const key = fake.apiKey;
      fake.apiKey = "revoked";
      try {
        const deployment = fake === claude ? "claude-bot" : "gemini-bot";
        const error = await openai()
          .chat.completions.create({ model: deployment, messages: [{ role: "user", content: "Hi" }] })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const refused = error as InstanceType<typeof OpenAI.APIError>;
        expect(refused.status).toBe(502);
        expect(refused.code).toBe("upstream_auth_failed");
      } finally {
        fake.apiKey = key;
      }
    }
  });
});
