import { engineIds } from "#core/domain.ts";
import type { ModelView } from "#services/orchestration/views.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Field, FormCard, type FormState, Select } from "../_shared/parts/form.tsx";
import { ActionButton, ActionsHeader, Ago, EmptyState, PageHeader, Table } from "../_shared/parts/list.tsx";

export interface ModelsPageProps {
  page: PageInfo;
  models: ModelView[];
  form?: FormState;
}

/** Versions grouped under their model's name, in the order the service lists them. */
const byName = (models: ModelView[]) => {
  const groups = new Map<string, ModelView[]>();
  for (const m of models) groups.set(m.model_name, [...(groups.get(m.model_name) ?? []), m]);
  return [...groups];
};

export function ModelsPage({ page, models, form = {} }: ModelsPageProps) {
  const writable = can(page, "models:write");
  const values = { backend: "llama.cpp", ...form.values };
  return (
    <Layout title="Models" page={page}>
      <PageHeader title="Model registry" />
      {models.length === 0 ? (
        <EmptyState title="No models registered yet">
          <p>
            Register a GGUF path, a URL or a hub id below; a deployment then names it as
            registry://name/version.
          </p>
        </EmptyState>
      ) : (
        byName(models).map(([name, versions]) => (
          <section class="card">
            <h2 safe>{name}</h2>
            <Table label={name}>
              <thead>
                <tr>
                  <th>Version</th>
                  <th>Engine</th>
                  <th>Source</th>
                  <th>Registered</th>
                  <ActionsHeader when={writable} />
                </tr>
              </thead>
              <tbody>
                {versions.map((m) => (
                  <tr>
                    <td class="mono" safe>
                      {m.model_version}
                    </td>
                    <td safe>{m.backend}</td>
                    <td class="mono" safe>
                      {m.artifact_uri ?? "—"}
                    </td>
                    <td>
                      <Ago at={m.created_at} />
                    </td>
                    {writable ? (
                      <td>
                        <ActionButton
                          action="/models/delete"
                          label="Delete"
                          tone="danger"
                          csrf={page.csrf}
                          fields={{ model_name: m.model_name, model_version: m.model_version }}
                          confirm={`Delete ${m.model_name} version ${m.model_version} from the registry?`}
                        />
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </Table>
          </section>
        ))
      )}
      {writable ? (
        <FormCard title="Register a model version" action="/models" csrf={page.csrf} errors={form.errors}>
          <div class="grid2">
            <Field name="model_name" label="Model name" required errors={form.errors} values={values} />
            <Field
              name="model_version"
              label="Version"
              errors={form.errors}
              values={values}
              placeholder="latest"
            />
            <Select
              name="backend"
              label="Engine"
              errors={form.errors}
              values={values}
              choices={engineIds.map((e) => ({ value: e, label: e }))}
            />
            <Field
              name="artifact_uri"
              label="Source (path or URL)"
              errors={form.errors}
              values={values}
              placeholder="/srv/models/tiny.gguf or https://…"
              hint="A local GGUF path for llama.cpp; a hub id or URL for container engines."
            />
          </div>
          <button type="submit">Register</button>
        </FormCard>
      ) : null}
    </Layout>
  );
}
