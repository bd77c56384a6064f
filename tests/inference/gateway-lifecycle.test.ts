// What the replica receives once the lifecycle has run: the deployment's prompt template (a new
// version within a second), a redacted prompt, and the parameters the caller sent, passed through.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { POST as createPromptRoute } from "#routes/filtration/management/prompts/index.ts";
import { call } from "../support/app.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const lastReceived = () =>
  g.stub.received.at(-1) as { messages: { role: string; content: string }[] } & Record<string, unknown>;

test("the deployment's template is applied, and a new version is used within a second", async () => {
  const created = await call<typeof createPromptRoute>(g.o.filtration, "POST", "/management/prompts", {
    token: g.o.token,
    body: { name: "support", system_prompt: "You are version one.", user_template: "Q: {{input}}" },
  });
  expect(created.status).toBe(201);
  await setPolicy(g, "prompt", { template_id: created.body.id });
  g.clock.advance(1100);
  expect((await chat(g, { messages: [{ role: "user", content: "hello" }] })).status).toBe(200);
  expect(lastReceived().messages).toEqual([
    { role: "system", content: "You are version one." },
    { role: "user", content: "Q: hello" },
  ]);
  const updated = await call(g.o.filtration, "PUT", `/management/prompts/${created.body.id}`, {
    token: g.o.token,
    body: { system_prompt: "You are version two.", user_template: "Q: {{input}}" },
  });
  expect(updated.status).toBe(200);
  g.clock.advance(1100);
  expect((await chat(g, { messages: [{ role: "user", content: "hello" }] })).status).toBe(200);
  expect(lastReceived().messages[0]?.content).toBe("You are version two.");
  await call(g.o.filtration, "DELETE", `/management/config/prompt?deployment_id=${g.deploymentId}`, {
    token: g.o.token,
  });
});

test("an input pii policy of redact forwards the redacted prompt", async () => {
  await setPolicy(g, "guardrails", { input: { pii: { action: "redact" } } });
  g.clock.advance(1100);
  const response = await chat(g, {
    messages: [{ role: "user", content: "write to jane.doe@example.com today" }],
  });
  expect(response.status).toBe(200);
  const sent = JSON.stringify(lastReceived().messages);
  expect(sent).toContain("[EMAIL]");
  expect(sent).not.toContain("jane.doe@example.com");
});

test("OpenAI parameters pass through to the replica; the model is the deployment's name", async () => {
  const params = {
    temperature: 0.3,
    top_p: 0.9,
    max_tokens: 17,
    stop: ["\n\n"],
    presence_penalty: 0.5,
    frequency_penalty: 0.25,
    seed: 42,
    user: "user-7",
    n: 1,
    response_format: { type: "json_object" },
  };
  expect((await chat(g, params)).status).toBe(200);
  const received = lastReceived();
  for (const [name, value] of Object.entries(params)) expect(received[name], name).toEqual(value);
  expect(received.model).toBe(g.model);
});
