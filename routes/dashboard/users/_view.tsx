import type { PermissionView, RoleView } from "#services/rbac/roles.ts";
import type { OrganizationUser, PendingMember } from "#services/rbac/users.ts";
import { Layout } from "../_shared/layout.tsx";
import { can, type PageInfo } from "../_shared/page.ts";
import {
  Checkboxes,
  Csrf,
  Field,
  FormCard,
  FormProblem,
  type FormState,
  Select,
} from "../_shared/parts/form.tsx";
import { ActionButton, Ago, Badge, PageHeader, Table } from "../_shared/parts/list.tsx";

export interface UsersPageProps {
  page: PageInfo;
  users: OrganizationUser[];
  /** Added and not joined yet: whether their e-mail had an account is not shown (nor known here). */
  invitations: PendingMember[];
  roles: RoleView[];
  permissions: PermissionView[];
  /** Which form came back with problems: "add", "role:<name>", "new-role" or "user:<id>". */
  failed?: { form: string; state: FormState } | undefined;
}

/** The role with the fewest permissions (built-in roles first on a tie): the safe default. */
export function leastPrivileged(roles: RoleView[]): RoleView | undefined {
  return [...roles].sort(
    (a, b) => a.permissions.length - b.permissions.length || Number(b.builtin) - Number(a.builtin),
  )[0];
}

export function UsersPage({ page, users, invitations, roles, permissions, failed }: UsersPageProps) {
  const stateOf = (form: string): FormState => (failed?.form === form ? failed.state : {});
  const userWrite = can(page, "users:write");
  const roleWrite = can(page, "roles:write");
  const roleChoices = roles.map((r) => ({ value: r.name, label: r.name }));
  // A new user starts with the least they could need; granting more is a deliberate second choice.
  const addState = stateOf("add");
  const addValues = { role: leastPrivileged(roles)?.name ?? "", ...addState.values };
  const permissionChoices = permissions.map((p) => ({ value: p.name, label: `${p.name}: ${p.description}` }));
  return (
    <Layout title="Users and roles" page={page}>
      <PageHeader title="Users and roles" />
      <h2>Users of this organization</h2>
      <Table label="Users">
        <thead>
          <tr>
            <th>E-mail</th>
            <th>Role</th>
            <th>Two-factor</th>
            <th>Joined</th>
            {userWrite ? <th>Membership</th> : null}
          </tr>
        </thead>
        <tbody>
          {users.map((u) => {
            const state = stateOf(`user:${u.id}`);
            return (
              <tr>
                <td safe>{u.email}</td>
                <td>
                  {userWrite ? (
                    <form method="post" action={`/users/${u.id}/role`} class="inline-form">
                      <Csrf token={page.csrf} />
                      <Select
                        name="role"
                        label={`Role of ${u.email}`}
                        form={u.id}
                        values={{ role: u.role }}
                        errors={state.errors}
                        choices={roleChoices}
                      />
                      <button type="submit" class="secondary small">
                        Save
                      </button>
                    </form>
                  ) : (
                    <span safe>{u.role}</span>
                  )}
                  {state.errors?._form ? (
                    <p class="field-error" safe>
                      {state.errors._form}
                    </p>
                  ) : null}
                </td>
                <td>
                  <Badge state={u.totp_enabled ? "on" : "off"} />
                </td>
                <td>
                  <Ago at={u.joined_at} />
                </td>
                {userWrite ? (
                  <td>
                    {u.id === page.actor.userId ? (
                      <span class="muted">you</span>
                    ) : (
                      <ActionButton
                        action={`/users/${u.id}/remove`}
                        label="Remove"
                        tone="danger"
                        csrf={page.csrf}
                        confirm={`Remove ${u.email} from this organization? Their sessions here end at once.`}
                      />
                    )}
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </Table>
      {invitations.length > 0 ? (
        <>
          <h2>Invited, not joined yet</h2>
          <Table label="Invitations">
            <thead>
              <tr>
                <th>E-mail</th>
                <th>Role</th>
                <th>Invited</th>
                <th>Expires</th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr>
                  <td safe>{i.email}</td>
                  <td safe>{i.role}</td>
                  <td>
                    <Ago at={i.invited_at} />
                  </td>
                  <td>
                    <Ago at={i.expires_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </>
      ) : null}
      {userWrite ? (
        <FormCard title="Add a user" action="/users" csrf={page.csrf} errors={stateOf("add").errors}>
          <div class="grid2">
            <Field name="email" label="E-mail" type="email" required {...stateOf("add")} />
            <Select
              name="role"
              label="Role"
              choices={roleChoices}
              errors={addState.errors}
              values={addValues}
              hint="Preselected: the role with the fewest permissions."
            />
            <Field
              name="password"
              label="First password"
              type="password"
              autocomplete="new-password"
              required
              errors={stateOf("add").errors}
              hint="Someone who already has an account (another organization) keeps theirs and is invited: they join once they accept."
            />
          </div>
          <button type="submit">Add user</button>
        </FormCard>
      ) : null}

      <h2>Roles</h2>
      {roles.map((r) => {
        const state = stateOf(`role:${r.name}`);
        const editable = roleWrite && !r.builtin;
        return (
          <section class="card" id={`role-${r.name}`}>
            <div class="page-header">
              <h3 safe>{r.name}</h3>
              <span class="muted" safe>
                {`${r.builtin ? "built-in, fixed" : "custom"}; held by ${r.user_count}`}
              </span>
            </div>
            {r.description ? <p safe>{r.description}</p> : null}
            {editable ? (
              <form method="post" action={`/roles/${r.name}`}>
                <Csrf token={page.csrf} />
                <FormProblem errors={state.errors} />
                <Checkboxes
                  name="permissions"
                  label="Permissions"
                  form={`role-${r.name}`}
                  choices={permissionChoices}
                  values={state.values ?? { permissions: r.permissions }}
                  errors={state.errors}
                />
                <button type="submit">Save permissions</button>
              </form>
            ) : (
              <fieldset disabled>
                <Checkboxes
                  name="permissions"
                  label="Permissions"
                  form={`role-${r.name}`}
                  choices={permissionChoices}
                  values={{ permissions: r.permissions }}
                />
              </fieldset>
            )}
            {editable && r.user_count === 0 ? (
              <ActionButton
                action={`/roles/${r.name}/delete`}
                label="Delete role"
                tone="danger"
                csrf={page.csrf}
                confirm={`Delete the role ${r.name}?`}
              />
            ) : null}
          </section>
        );
      })}
      {roleWrite ? (
        <FormCard title="Create a role" action="/roles" csrf={page.csrf} errors={stateOf("new-role").errors}>
          <div class="grid2">
            <Field
              name="name"
              label="Name"
              required
              hint="Lower-case letters, digits, _ and -"
              {...stateOf("new-role")}
            />
            <Field name="description" label="Description" {...stateOf("new-role")} />
          </div>
          <Checkboxes
            name="permissions"
            label="Permissions"
            form="new-role"
            choices={permissionChoices}
            {...stateOf("new-role")}
          />
          <button type="submit">Create role</button>
        </FormCard>
      ) : null}
    </Layout>
  );
}
