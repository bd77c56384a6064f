import { removeUser } from "#services/rbac/users.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "users:write",
  summary: "Remove a user from the organization (after the page's confirmation)",
  act: removeUser,
  goTo: () => "/users",
  notice: "user-removed",
});
