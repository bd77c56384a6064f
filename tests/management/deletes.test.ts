// Deleting a knowledge-base collection and a prompt template: gone with what they hold, audited, refused
// with 409 naming the deployments while a policy still uses them, 403 for a viewer and 404 for another
// organization's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, knowledgeDocuments, promptTemplateVersions } from "#db/schema/index.ts";
import type { DELETE as deleteCollection } from "#routes/filtration/management/knowledge-base/collections/[id].ts";
import type {
  POST as createCollection,
  GET as listCollections,
} from "#routes/filtration/management/knowledge-base/collections/index.ts";
import type { DELETE as deleteTemplate } from "#routes/filtration/management/prompts/[id].ts";
import type { POST as createTemplate } from "#routes/filtration/management/prompts/index.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { defaultOrgId, insertDeployment } from "./support.ts";

const { t, handle, admin, viewer, outsider } = await startWithCallers("deletes");
let deploymentId: string;

beforeAll(async () => {
  deploymentId = (await insertDeployment(t.app.db, await defaultOrgId(t.app.db), { name: "uses-things" })).id;
}, 60_000);
afterAll(() => t.close());

async function newCollection(name: string): Promise<string> {
  const res = await call<typeof createCollection>(handle, "POST", "/management/knowledge-base/collections", {
    token: admin,
    body: { name },
  });
  expect(res.status).toBe(201);
  const form = new FormData();
  form.set("collection_id", res.body.id);
  form.append("files", new File(["# Leave\n\nSixteen weeks."], "leave.md", { type: "text/markdown" }));
  const upload = await handle(
    new Request("http://localhost/management/knowledge-base/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    }),
  );
  expect(upload.status).toBe(201);
  return res.body.id;
}

async function newTemplate(name: string): Promise<string> {
  const res = await call<typeof createTemplate>(handle, "POST", "/management/prompts", {
    token: admin,
    body: { name, system_prompt: "Be brief." },
  });
  expect(res.status).toBe(201);
  await call(handle, "PUT", `/management/prompts/${res.body.id}`, {
    token: admin,
    body: { system_prompt: "v2" },
  });
  return res.body.id;
}

const audited = async (action: string, id: string) =>
  (
    await t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, action), eq(auditLogs.targetId, id)))
  ).length;

test("a collection is deleted with its documents, and audited", async () => {
  const id = await newCollection("to-delete");
  const res = await call<typeof deleteCollection>(
    handle,
    "DELETE",
    `/management/knowledge-base/collections/${id}`,
    {
      token: admin,
    },
  );
  expect(res).toMatchObject({ status: 200, body: { id, deleted: true } });
  expect(
    await t.app.db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.collectionId, id)),
  ).toEqual([]);
  const list = await call<typeof listCollections>(handle, "GET", "/management/knowledge-base/collections", {
    token: admin,
  });
  expect(list.body.collections.map((c: { id: string }) => c.id)).not.toContain(id);
  expect(await audited("knowledge_collection.delete", id)).toBe(1);
  expect(
    (await call(handle, "DELETE", `/management/knowledge-base/collections/${id}`, { token: admin })).status,
  ).toBe(404);
});

test("a collection a rag policy lists is refused with 409 naming the deployment, until the policy lets go", async () => {
  const id = await newCollection("in-use");
  const policy = await call(handle, "POST", "/management/config/rag", {
    token: admin,
    body: { deployment_id: deploymentId, config: { collection_ids: [id] } },
  });
  expect(policy.status).toBeLessThan(300);
  const refused = await call<ErrorBody>(handle, "DELETE", `/management/knowledge-base/collections/${id}`, {
    token: admin,
  });
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain("deployment uses-things");
  await call(handle, "DELETE", `/management/config/rag?deployment_id=${deploymentId}`, { token: admin });
  const del = await call(handle, "DELETE", `/management/knowledge-base/collections/${id}`, { token: admin });
  expect(del.status).toBe(200);
});

test("a template is deleted with every version; one a prompt policy applies is refused with 409", async () => {
  const id = await newTemplate("to-delete");
  const res = await call<typeof deleteTemplate>(handle, "DELETE", `/management/prompts/${id}`, {
    token: admin,
  });
  expect(res).toMatchObject({ status: 200, body: { id, deleted: true } });
  expect(
    await t.app.db.select().from(promptTemplateVersions).where(eq(promptTemplateVersions.templateId, id)),
  ).toEqual([]);
  expect((await call(handle, "GET", `/management/prompts/${id}`, { token: admin })).status).toBe(404);
  expect(await audited("prompt_template.delete", id)).toBe(1);

  const used = await newTemplate("org-wide");
  await call(handle, "POST", "/management/config/prompt", {
    token: admin,
    body: { config: { template_id: used } },
  });
  const refused = await call<ErrorBody>(handle, "DELETE", `/management/prompts/${used}`, { token: admin });
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain("the organization");
});

test("a viewer may not delete (403); another organization's record is 404", async () => {
  const collection = await newCollection("guarded");
  const template = await newTemplate("guarded");
  for (const path of [
    `/management/knowledge-base/collections/${collection}`,
    `/management/prompts/${template}`,
  ]) {
    expect((await call(handle, "DELETE", path, { token: viewer })).status).toBe(403);
    expect((await call(handle, "DELETE", path, { token: outsider })).status).toBe(404);
  }
  expect((await call(handle, "GET", `/management/prompts/${template}`, { token: admin })).status).toBe(200);
});
