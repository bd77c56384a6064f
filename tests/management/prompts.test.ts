import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { promptTemplateVersions } from "#db/schema/index.ts";
import type { GET as templateVersions } from "#routes/filtration/management/prompts/[id]/versions.ts";
import type {
  GET as readTemplate,
  PUT as updateTemplate,
} from "#routes/filtration/management/prompts/[id].ts";
import type {
  POST as createTemplate,
  GET as listTemplates,
} from "#routes/filtration/management/prompts/index.ts";
import { applyTemplate } from "#services/prompts/apply.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf } from "./support.ts";

const { t, handle, admin, viewer, outsider } = await startWithCallers("prompt");
afterAll(() => t.close());

/** Creates a template as `token`; a test that expects a refusal reads it as `create<ErrorBody>(...)`. */
const create = <R = typeof createTemplate>(body: unknown, token = admin) =>
  call<R>(handle, "POST", "/management/prompts", { token, body });
/** Updates a template as `token`; `update<ErrorBody>(...)` for a refusal. */
const update = <R = typeof updateTemplate>(id: string, body: unknown, token = admin) =>
  call<R>(handle, "PUT", `/management/prompts/${id}`, { token, body });

test("create answers version 1 with a stable id; list shows it", async () => {
  const res = await create({
    name: "support",
    system_prompt: "You are helpful.",
    user_template: "Q: {{input}}",
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({
    name: "support",
    system_prompt: "You are helpful.",
    user_template: "Q: {{input}}",
    version: 1,
  });
  const list = await call<typeof listTemplates>(handle, "GET", "/management/prompts", { token: viewer });
  expect(list.status).toBe(200);
  expect(list.body.templates.map((p: { id: string }) => p.id)).toContain(res.body.id);
});

test("an update makes a new version, keeps the old, and the list shows the latest", async () => {
  const { id } = (await create({ name: "versioned", system_prompt: "v1 system" })).body;
  const v2 = await update(id, { user_template: "Answer: {{input}}" });
  expect(v2.status).toBe(200);
  expect(v2.body).toMatchObject({
    id,
    version: 2,
    system_prompt: "v1 system",
    user_template: "Answer: {{input}}",
  });
  const v3 = await update(id, { system_prompt: null, name: "versioned-renamed" });
  expect(v3.body).toMatchObject({ id, version: 3, name: "versioned-renamed", system_prompt: null });

  const latest = await call<typeof readTemplate>(handle, "GET", `/management/prompts/${id}`, {
    token: admin,
  });
  expect(latest.body.version).toBe(3);
  const first = await call<typeof readTemplate>(handle, "GET", `/management/prompts/${id}?version=1`, {
    token: admin,
  });
  expect(first.body).toMatchObject({
    id,
    version: 1,
    name: "versioned",
    system_prompt: "v1 system",
    user_template: null,
  });
  expect((await call(handle, "GET", `/management/prompts/${id}?version=9`, { token: admin })).status).toBe(
    404,
  );

  const versions = await call<typeof templateVersions>(handle, "GET", `/management/prompts/${id}/versions`, {
    token: admin,
  });
  expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
  expect(
    await t.app.db.select().from(promptTemplateVersions).where(eq(promptTemplateVersions.templateId, id)),
  ).toHaveLength(3);

  const list = await call<typeof listTemplates>(handle, "GET", "/management/prompts", { token: admin });
  const listed = list.body.templates.filter((p: { id: string }) => p.id === id);
  expect(listed).toHaveLength(1);
  expect(listed[0]?.version).toBe(3);
});

test("concurrent updates each get their own version number", async () => {
  const { id } = (await create({ name: "raced", system_prompt: "start" })).body;
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => update(id, { system_prompt: `edit ${i}` })),
  );
  expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(results.map((r) => r.body.version).sort()).toEqual([2, 3, 4, 5, 6]);
});

test("user_template without {{input}}, an empty template or a blank name are 400 naming the field", async () => {
  const noInput = await create<ErrorBody>({ name: "bad", user_template: "Tell me about {{context}}" });
  expect(noInput.status).toBe(400);
  expect(fieldsOf(noInput.body)).toEqual(["user_template"]);
  expect(fieldsOf((await create<ErrorBody>({ name: "empty" })).body)).toEqual(["system_prompt"]);
  expect(fieldsOf((await create<ErrorBody>({ name: "  ", system_prompt: "x" })).body)).toEqual(["name"]);
  expect(fieldsOf((await create<ErrorBody>({ system_prompt: "x" })).body)).toContain("name");
  const { id } = (await create({ name: "fine", user_template: "{{input}}" })).body;
  const broken = await update<ErrorBody>(id, { user_template: "no placeholder" });
  expect(broken.status).toBe(400);
  expect(fieldsOf(broken.body)).toEqual(["user_template"]);
  expect(
    (await call<typeof readTemplate>(handle, "GET", `/management/prompts/${id}`, { token: admin })).body
      .version,
  ).toBe(1);
});

test("a duplicate name is 409, on create and on rename", async () => {
  await create({ name: "taken", system_prompt: "x" });
  const dup = await create<ErrorBody>({ name: "taken", system_prompt: "y" });
  expect(dup.status).toBe(409);
  expect(dup.body.error.code).toBe("conflict");
  const { id } = (await create({ name: "other-name", system_prompt: "x" })).body;
  expect((await update(id, { name: "taken" })).status).toBe(409);
});

test("401 without a token, 403 for a viewer's writes, 404 for another organization's template", async () => {
  expect((await call(handle, "GET", "/management/prompts")).status).toBe(401);
  expect((await create({ name: "viewer's", system_prompt: "x" }, viewer)).status).toBe(403);
  const { id } = (await create({ name: "private", system_prompt: "secret instructions" })).body;
  expect((await update(id, { system_prompt: "x" }, viewer)).status).toBe(403);
  expect((await call(handle, "GET", `/management/prompts/${id}`, { token: outsider })).status).toBe(404);
  expect((await update(id, { system_prompt: "hijack" }, outsider)).status).toBe(404);
  expect((await call(handle, "GET", `/management/prompts/${id}/versions`, { token: outsider })).status).toBe(
    404,
  );
  const theirs = await call<typeof listTemplates>(handle, "GET", "/management/prompts", { token: outsider });
  expect(theirs.body.templates).toEqual([]);
  // The same name is free in another organization.
  expect((await create({ name: "private", system_prompt: "theirs" }, outsider)).status).toBe(201);
});

test("applying a template: system prompt first, the last user message wrapped, placeholders filled once", () => {
  const messages: ChatMessage[] = [
    { role: "user", content: "first question" },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "say {{context}} and {{input}}" },
  ];
  const applied = applyTemplate(messages, {
    systemPrompt: "Be brief.",
    userTemplate: "Context: {{context}}\nQ: {{input}}",
  });
  expect(applied).toEqual([
    { role: "system", content: "Be brief." },
    { role: "user", content: "first question" },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "Context: \nQ: say {{context}} and {{input}}" },
  ]);
  expect(messages[2]?.content).toBe("say {{context}} and {{input}}");
  const parts = applyTemplate([{ role: "user", content: [{ type: "text", text: "hi" }] }], {
    systemPrompt: null,
    userTemplate: "<{{input}}>",
  });
  expect(parts).toEqual([{ role: "user", content: "<hi>" }]);
});
