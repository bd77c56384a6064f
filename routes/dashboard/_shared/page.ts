// What every dashboard page knows besides its own data: who is signed in (for the header, the
// navigation and which buttons to offer), the CSRF token for its forms, the organizations for the
// switcher and the path it was asked for. Pages build it once with `pageInfo` and pass it to Layout.
import { listMyOrganizations, type OrganizationMembership } from "#services/auth/organizations.ts";
import { type Actor, actorOf, type RequestContext } from "#services/context.ts";
import type { Permission } from "#services/permissions.ts";
import { csrfTokenOf } from "./csrf.ts";
import { noticeOf } from "./notice.ts";

export interface PageInfo {
  actor: Actor;
  csrf: string;
  /** Path and query of the page, for the switcher's return and the sign-in's `next`. */
  path: string;
  organizations: OrganizationMembership[];
  /** What the change before this page did, when it ended in a redirect (notice.ts). */
  notice?: string | undefined;
}

export async function pageInfo(ctx: RequestContext, request: Request): Promise<PageInfo> {
  const url = new URL(request.url);
  return {
    actor: actorOf(ctx),
    csrf: csrfTokenOf(request),
    path: url.pathname + url.search,
    organizations: (await listMyOrganizations(ctx)).organizations,
    notice: noticeOf(request),
  };
}

/**
 * Whether the page should offer an action. Only a courtesy: the route behind the action declares the
 * same permission and the server refuses it anyway.
 */
export const can = (page: PageInfo, permission: Permission): boolean =>
  page.actor.permissions.has(permission);
