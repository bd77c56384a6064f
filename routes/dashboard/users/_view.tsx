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

/** What the page's parts share: the page, the forms' states and the choices of its selects. */
interface UsersView {
  page: PageInfo;
  stateOf: (form: string) => FormState;
  roleChoices: { value: string; label: string }[];
  permissionChoices: { value: string; label: string }[];
}

export function UsersPage({ page, users, invitations, roles, permissions, failed }: UsersPageProps) {
  const stateOf = (form: string): FormState => (failed?.form === form ? failed.state : {});
  const userWrite = can(page, "users:write");
  const roleWrite = can(page, "roles:write");
  const roleChoices = roles.map((r) => ({ value: r.name, label: r.name }));
  const permissionChoices = permissions.map((p) => ({ value: p.name, label: `${p.name}: ${p.description}` }));
  const view: UsersView = { page, stateOf, roleChoices, permissionChoices };
  return (
    <Layout title="Users and roles" page={page}>
      <PageHeader title="Users and roles" />
      <h2>Users of this organization</h2>
      <UsersTable view={view} users={users} userWrite={userWrite} />
      {invitations.length > 0 ? <InvitationsTable invitations={invitations} /> : null}
      {userWrite ? <AddUserForm view={view} roles={roles} /> : null}

      <h2>Roles</h2>
      {roles.map((r) => (
        <RoleCard view={view} role={r} editable={roleWrite && !r.builtin} />
      ))}
      {roleWrite ? <CreateRoleForm view={view} /> : null}
    </Layout>
  );
}

function UsersTable({
  view,
  users,
  userWrite,
}: {
  view: UsersView;
  users: OrganizationUser[];
  userWrite: boolean;
}) {
  return (
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
        {users.map((u) => (
          <UserRow view={view} user={u} userWrite={userWrite} />
        ))}
      </tbody>
    </Table>
  );
}

function UserRow({
  view,
  user: u,
  userWrite,
}: {
  view: UsersView;
  user: OrganizationUser;
  userWrite: boolean;
}) {
  const { page } = view;
  const state = view.stateOf(`user:${u.id}`);
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
              choices={view.roleChoices}
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
}

function InvitationsTable({ invitations }: { invitations: PendingMember[] }) {
  return (
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
  );
}

function AddUserForm({ view, roles }: { view: UsersView; roles: RoleView[] }) {
  const { page, stateOf } = view;
  // A new user starts with the least they could need; granting more is a deliberate second choice.
  const addState = stateOf("add");
  const addValues = { role: leastPrivileged(roles)?.name ?? "", ...addState.values };
  return (
    <FormCard title="Add a user" action="/users" csrf={page.csrf} errors={stateOf("add").errors}>
      <div class="grid2">
        <Field name="email" label="E-mail" type="email" required {...stateOf("add")} />
        <Select
          name="role"
          label="Role"
          choices={view.roleChoices}
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
  );
}

function RoleCard({ view, role: r, editable }: { view: UsersView; role: RoleView; editable: boolean }) {
  const { page, permissionChoices } = view;
  const state = view.stateOf(`role:${r.name}`);
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
}

function CreateRoleForm({ view }: { view: UsersView }) {
  const { page, stateOf } = view;
  return (
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
        choices={view.permissionChoices}
        {...stateOf("new-role")}
      />
      <button type="submit">Create role</button>
    </FormCard>
  );
}
