import type { ApiKeyView, CreatedApiKey } from "#services/api-keys/keys.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import { Checkboxes, Field, FormCard, type FormState } from "../_shared/parts/form.tsx";
import {
  ActionButton,
  ActionsHeader,
  Ago,
  Badge,
  EmptyState,
  PageHeader,
  SecretOnce,
  Table,
} from "../_shared/parts/list.tsx";

export interface ApiKeysPageProps {
  page: PageInfo;
  keys: ApiKeyView[];
  /** The deployments a new key may be limited to. */
  deployments: { id: string; name: string }[];
  form?: FormState;
  /** A key just created: its value, shown this once. */
  created?: CreatedApiKey | undefined;
}

const stateOf = (k: ApiKeyView, now: Date) =>
  k.revoked_at ? "REVOKED" : k.expires_at && new Date(k.expires_at) <= now ? "EXPIRED" : "ACTIVE";

export function ApiKeysPage({ page, keys, deployments, form = {}, created }: ApiKeysPageProps) {
  const now = new Date();
  const names = new Map(deployments.map((d) => [d.id, d.name]));
  return (
    <Layout title="API keys" page={page}>
      <PageHeader title="API keys" />
      {created ? (
        <section class="notice" aria-live="polite">
          <p>
            <strong>
              Key <span safe>{created.name}</span> created. Copy it now: you will not see it again.
            </strong>
          </p>
          <SecretOnce id="new-key" value={created.key} />
          <p class="hint">Only its prefix is kept in a readable form; we store a hash of the rest.</p>
        </section>
      ) : null}
      {keys.length === 0 ? (
        <EmptyState title="No API keys yet">
          <p>Applications call the inference gateway with a key. Create the first one below.</p>
        </EmptyState>
      ) : (
        <Table label="API keys">
          <thead>
            <tr>
              <th>Name</th>
              <th>Prefix</th>
              <th>Deployments</th>
              <th>State</th>
              <th>Last used</th>
              <th>Expires</th>
              <th>Created</th>
              <ActionsHeader when={can(page, "api_keys:write")} />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <ApiKeyRow page={page} apiKey={k} names={names} now={now} />
            ))}
          </tbody>
        </Table>
      )}
      {can(page, "api_keys:write") ? (
        <CreateKeyForm page={page} deployments={deployments} form={form} />
      ) : null}
    </Layout>
  );
}

function ApiKeyRow({
  page,
  apiKey: k,
  names,
  now,
}: {
  page: PageInfo;
  apiKey: ApiKeyView;
  /** Deployment names by id. */
  names: Map<string, string>;
  now: Date;
}) {
  const state = stateOf(k, now);
  return (
    <tr>
      <td>
        <a href={`/api-keys/${k.id}`} safe>
          {k.name}
        </a>
      </td>
      <td class="mono" safe>
        {k.prefix}
      </td>
      <td safe>
        {k.deployment_ids.length === 0 ? "all" : k.deployment_ids.map((id) => names.get(id) ?? id).join(", ")}
      </td>
      <td>
        <Badge state={state} />
      </td>
      <td>
        <Ago at={k.last_used_at} now={now} />
      </td>
      <td safe>{String(k.expires_at?.slice(0, 10) ?? "never")}</td>
      <td>
        <Ago at={k.created_at} now={now} />
      </td>
      {can(page, "api_keys:write") ? (
        <td>
          {state === "REVOKED" ? null : (
            <ActionButton
              action={`/api-keys/${k.id}/revoke`}
              label="Revoke"
              tone="danger"
              csrf={page.csrf}
              confirm={`Revoke the key ${k.name} (${k.prefix})? Applications using it stop working within a second.`}
            />
          )}
        </td>
      ) : null}
    </tr>
  );
}

function CreateKeyForm({
  page,
  deployments,
  form,
}: {
  page: PageInfo;
  deployments: ApiKeysPageProps["deployments"];
  form: FormState;
}) {
  return (
    <FormCard title="Create an API key" action="/api-keys" csrf={page.csrf} errors={form.errors}>
      <div class="grid2">
        <Field name="name" label="Name" required {...form} hint="Who or what uses it, e.g. support-bot." />
        <Field
          name="expires_on"
          label="Expires on (optional)"
          type="date"
          {...form}
          hint="Leave blank for a key that does not expire."
        />
      </div>
      {deployments.length > 0 ? (
        <Checkboxes
          name="deployment_ids"
          label="Limit to deployments (optional)"
          choices={deployments.map((d) => ({ value: d.id, label: d.name }))}
          hint="None ticked: the key may call every deployment of the organization."
          {...form}
        />
      ) : null}
      <button type="submit">Create key</button>
    </FormCard>
  );
}
