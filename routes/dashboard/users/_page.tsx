// The users page with everything it lists, for its GET and for every form of it that comes back with
// problems (the page has several forms; `failed` says which one).
import type { RequestContext } from "#services/context.ts";
import { listPermissions, listRoles } from "#services/rbac/roles.ts";
import { listUsers } from "#services/rbac/users.ts";
import { pageInfo } from "../_shared/page.ts";
import { UsersPage, type UsersPageProps } from "./_view.tsx";

export async function usersPage(
  ctx: RequestContext,
  request: Request,
  failed?: UsersPageProps["failed"],
): Promise<JSX.Element> {
  const [page, { users, invitations }, { roles }] = await Promise.all([
    pageInfo(ctx, request),
    listUsers(ctx),
    listRoles(ctx),
  ]);
  return (
    <UsersPage
      page={page}
      users={users}
      invitations={invitations}
      roles={roles}
      permissions={listPermissions().permissions}
      failed={failed}
    />
  );
}
