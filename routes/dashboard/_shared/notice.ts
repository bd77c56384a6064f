// The notice a page shows after a change that ended in a redirect ("User added."): the redirect sets a
// short-lived cookie holding a key of this table (never text from the request, so no link can make the
// dashboard say something else), the next page shows the message as a status notice, and
// assets/dashboard.js clears the cookie once shown.
import { t } from "elysia";
import { route } from "#server/http/route.ts";
import type { RequestContext } from "#services/context.ts";
import type { Permission } from "#services/permissions.ts";
import { readCookie, redirect } from "./session.ts";

export const notices = {
  // The same for an invitation (an existing account), so the notice tells nothing of who has an account.
  "user-added":
    "Invitation made: the person joins when they accept it (a new account: at its first sign-in).",
  "user-removed": "User removed from the organization; their sessions here have ended.",
  "role-changed": "Role changed.",
  "role-created": "Role created.",
  "role-saved": "Role saved.",
  "role-deleted": "Role deleted.",
  "template-created": "Template created.",
  "version-saved": "New version saved.",
  "template-deleted": "Template deleted.",
  "collection-created": "Collection created.",
  "collection-deleted": "Collection deleted.",
  "document-deleted": "Document deleted.",
  "model-registered": "Model version registered.",
  "model-deleted": "Model version deleted.",
  "key-revoked": "Key revoked: it stops working within a second.",
  "deployment-terminating": "Terminating: the replicas stop.",
  "deployment-deleted": "Deployment deleted.",
  "pool-deleting": "Pool deleted: what it held at the provider is being released.",
  "policy-reset": "Policy reset: the organization's applies again.",
} as const;
export type NoticeKey = keyof typeof notices;

const cookieName = "llmp_notice";

/** A 303 to `location` whose page shows the notice `key`. */
export function redirectWithNotice(location: string, key: NoticeKey): Response {
  const headers = new Headers({ location });
  headers.append("set-cookie", `${cookieName}=${key}; Path=/; Max-Age=10; SameSite=Strict`);
  return new Response(null, { status: 303, headers });
}

const isNoticeKey = (key: string): key is NoticeKey => key in notices;

/** The message of the notice a redirect left for this page, if any. */
export function noticeOf(request: Request): string | undefined {
  const key = readCookie(request, cookieName);
  return key && isNoticeKey(key) ? notices[key] : undefined;
}

/**
 * A dashboard button's route on one record (`POST /<things>/:id/<verb>`, after the page's confirmation):
 * call the service with the id, then go to the page that shows the outcome, with its notice.
 */
export function recordAction(definition: {
  access: Permission;
  summary: string;
  act(ctx: RequestContext, id: string): Promise<unknown>;
  goTo: (id: string) => string;
  notice?: NoticeKey;
}) {
  return route({
    access: definition.access,
    summary: definition.summary,
    html: true,
    params: t.Object({ id: t.String() }),
    handler: async ({ ctx, params }) => {
      await definition.act(ctx, params.id);
      const location = definition.goTo(params.id);
      return definition.notice ? redirectWithNotice(location, definition.notice) : redirect(location);
    },
  });
}
