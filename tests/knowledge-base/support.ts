// The knowledge base as a test's user fills it: a collection, then files uploaded to it through the
// API (multipart, as curl -F sends them).
import type { POST as createCollectionRoute } from "#routes/filtration/management/knowledge-base/collections/index.ts";
import type { POST as uploadRoute } from "#routes/filtration/management/knowledge-base/upload.ts";
import type { GatewayTest } from "../inference/support.ts";
import { type BodyOf, call } from "../support/app.ts";

export async function createCollection(g: GatewayTest, name: string): Promise<string> {
  const created = await call<typeof createCollectionRoute>(
    g.o.filtration,
    "POST",
    "/management/knowledge-base/collections",
    {
      token: g.o.token,
      body: { name },
    },
  );
  if (created.status !== 201)
    throw new Error(`collection: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/**
 * Files as they are, or Markdown texts by file name. The body is typed as the route's answer, as `call`
 * types it; a test expecting a refusal reads it as `uploadFiles<ErrorBody>(...)`.
 */
export async function uploadFiles<R = typeof uploadRoute>(
  g: GatewayTest,
  collectionId: string,
  files: File[] | Record<string, string>,
): Promise<{ status: number; body: BodyOf<R> }> {
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
  // The body is the server's JSON: its type is the route's contract, which the server checks it against.
  const body: BodyOf<R> = await res.json();
  return { status: res.status, body };
}
