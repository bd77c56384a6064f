import type { CollectionView } from "#services/knowledge-base/collections.ts";
import type { DocumentView } from "#services/knowledge-base/documents.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Csrf, Field, FormCard, FormProblem, type FormState } from "../_shared/parts/form.tsx";
import { ActionButton, ActionsHeader, Ago, EmptyState, PageHeader, Table } from "../_shared/parts/list.tsx";

export function CollectionsPage({
  page,
  collections,
  form = {},
}: {
  page: PageInfo;
  collections: CollectionView[];
  form?: FormState;
}) {
  return (
    <Layout title="Knowledge base" page={page}>
      <PageHeader title="Knowledge base" />
      {collections.length === 0 ? (
        <EmptyState title="No collections yet">
          <p>
            A collection holds documents that deployments can cite: create one, upload text, Markdown, HTML or
            PDF files, then attach it in a deployment's policies.
          </p>
        </EmptyState>
      ) : (
        <Table label="Collections">
          <thead>
            <tr>
              <th>Collection</th>
              <th>Description</th>
              <th class="num">Documents</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {collections.map((c) => (
              <tr>
                <td>
                  <a href={`/knowledge-base/${c.id}`} safe>
                    {c.name}
                  </a>
                </td>
                <td safe>{c.description ?? ""}</td>
                <td class="num" safe>
                  {String(c.document_count)}
                </td>
                <td>
                  <Ago at={c.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {can(page, "knowledge_base:write") ? (
        <FormCard title="Create a collection" action="/knowledge-base" csrf={page.csrf} errors={form.errors}>
          <div class="grid2">
            <Field name="name" label="Name" required {...form} />
            <Field name="description" label="Description" {...form} />
          </div>
          <button type="submit">Create collection</button>
        </FormCard>
      ) : null}
    </Layout>
  );
}

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

function UploadForm({
  page,
  collection,
  form,
}: {
  page: PageInfo;
  collection: CollectionView;
  form: FormState;
}) {
  return (
    <section class="card">
      <h2>Upload documents</h2>
      <form method="post" action={`/knowledge-base/${collection.id}/upload`} enctype="multipart/form-data">
        <Csrf token={page.csrf} />
        <FormProblem errors={form.errors} />
        <Field
          name="files"
          label="Files"
          type="file"
          required
          errors={form.errors}
          attrs={{
            multiple: "multiple",
            accept: ".txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf",
          }}
          hint="Text, Markdown, HTML or PDF; up to 20 files of 10 MiB. One bad file and none is stored."
        />
        <button type="submit">Upload</button>
      </form>
    </section>
  );
}

function DocumentsTable({ page, documents }: { page: PageInfo; documents: DocumentView[] }) {
  return (
    <Table label="Documents">
      <thead>
        <tr>
          <th>Document</th>
          <th>Type</th>
          <th class="num">Size</th>
          <th>Uploaded</th>
          <ActionsHeader when={can(page, "knowledge_base:write")} />
        </tr>
      </thead>
      <tbody>
        {documents.map((d) => (
          <tr>
            <td safe>{d.filename}</td>
            <td safe>{d.content_type}</td>
            <td class="num" safe>
              {size(d.size_bytes)}
            </td>
            <td>
              <Ago at={d.created_at} />
            </td>
            {can(page, "knowledge_base:write") ? (
              <td>
                <ActionButton
                  action={`/knowledge-base/documents/${d.id}/delete`}
                  label="Delete"
                  tone="danger"
                  csrf={page.csrf}
                  confirm={`Delete ${d.filename} and its passages?`}
                />
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

export function CollectionPage({
  page,
  collection,
  documents,
  form = {},
  uploaded,
}: {
  page: PageInfo;
  collection: CollectionView;
  documents: DocumentView[];
  form?: FormState;
  uploaded?: { stored: number; duplicates: number } | undefined;
}) {
  return (
    <Layout title={`Collection ${collection.name}`} page={page}>
      <p>
        <a href="/knowledge-base">← Knowledge base</a>
      </p>
      <PageHeader title={`Collection ${collection.name}`}>
        {can(page, "knowledge_base:write") ? (
          <ActionButton
            action={`/knowledge-base/${collection.id}/delete`}
            label="Delete collection"
            tone="danger"
            csrf={page.csrf}
            confirm={`Delete the collection ${collection.name} with its documents?`}
          />
        ) : null}
      </PageHeader>
      {uploaded ? (
        <p class="notice" role="status" safe>
          {`Stored ${uploaded.stored} document${uploaded.stored === 1 ? "" : "s"}${uploaded.duplicates ? `; ${uploaded.duplicates} already there` : ""}.`}
        </p>
      ) : null}
      {can(page, "knowledge_base:write") ? (
        <UploadForm page={page} collection={collection} form={form} />
      ) : null}
      {documents.length === 0 ? (
        <EmptyState title="No documents in this collection yet" />
      ) : (
        <DocumentsTable page={page} documents={documents} />
      )}
    </Layout>
  );
}
