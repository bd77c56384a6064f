// The knowledge base as a test's user fills it: a collection, then files uploaded to it through the
// API (multipart, as curl -F sends them).
import type { GatewayTest } from "../inference/support.ts";
import { call } from "../support/app.ts";

export async function createCollection(g: GatewayTest, name: string): Promise<string> {
  const created = await call(g.o.filtration, "POST", "/management/knowledge-base/collections", {
    token: g.o.token,
    body: { name },
  });
  if (created.status !== 201)
    throw new Error(`collection: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** Files as they are, or Markdown texts by file name. */
export async function uploadFiles(
  g: GatewayTest,
  collectionId: string,
  files: File[] | Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field.
): Promise<{ status: number; body: any }> {
  const list = Array.isArray(files)
    ? files
    : Object.entries(files).map(([name, text]) => new File([text], name, { type: "text/markdown" }));
  const form = new FormData();
  form.append("collection_id", collectionId);
  for (const f of list) form.append("files", f);
  const res = await g.o.filtration(
    new Request("http://localhost/management/knowledge-base/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${g.o.token}` },
      body: form,
    }),
  );
  return { status: res.status, body: await res.json() };
}
