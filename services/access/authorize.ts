// The one decision of who may call an entry point, shared by the HTTP guard, the gRPC interceptor and
// the dashboard. Transports only extract credentials; this decides.

import { AppError } from "#core/errors.ts";
import { secretsEqual } from "../auth/constant-time.ts";
import { actorFromAccessToken } from "../auth/session.ts";
import type { Actor, AppContext } from "../context.ts";
import type { WithOrchestration } from "../orchestration/runtime.ts";
import type { Access } from "../permissions.ts";
import { actorFromScimToken } from "../scim/tokens.ts";
import { actorFromServiceToken, isPlatformToken } from "../sso/service-accounts.ts";

export interface Credentials {
  /** The value after "Bearer " in Authorization (or the dashboard's session cookie). */
  bearer?: string | undefined;
  /** X-Internal-API-Key. */
  internalKey?: string | undefined;
}

export interface Authorization {
  actor?: Actor;
  /** The caller proved the internal key. */
  internal?: boolean;
}

const internalKeyMatches = (ctx: AppContext, key: string | undefined) =>
  key !== undefined && secretsEqual(key, ctx.config.internalApiKey);

export async function authorize(
  ctx: AppContext & WithOrchestration,
  access: Access,
  credentials: Credentials,
): Promise<Authorization> {
  switch (access) {
    case "public":
      return {};
    case "internal":
      if (internalKeyMatches(ctx, credentials.internalKey)) return { internal: true };
      throw new AppError("unauthenticated", "missing or invalid internal API key");
    case "node":
      if (internalKeyMatches(ctx, credentials.internalKey)) return { internal: true };
      // A pool's node token: the orchestration runtime the composition root built knows them.
      if (credentials.bearer && (await ctx.orchestration.acceptsNodeToken(ctx, credentials.bearer)))
        return {};
      throw new AppError("unauthenticated", "missing or invalid node token");
    case "scim":
      if (!credentials.bearer) throw new AppError("unauthenticated", "missing bearer token");
      return { actor: await actorFromScimToken(ctx, credentials.bearer) };
    default: {
      if (!credentials.bearer) throw new AppError("unauthenticated", "missing bearer token");
      // The platform's own tokens (HS256), else a service account's token from the identity provider.
      const actor = isPlatformToken(credentials.bearer)
        ? await actorFromAccessToken(ctx, credentials.bearer)
        : await actorFromServiceToken(ctx, credentials.bearer);
      // "authenticated" routes are about the signed-in person (profile, TOTP, organizations): a machine
      // acts only through its role's permissions.
      if (access === "authenticated" && actor.machine)
        throw new AppError("forbidden", "a service account has no profile; it acts through its role");
      if (access !== "authenticated" && !actor.permissions.has(access)) {
        throw new AppError("forbidden", `your role lacks the permission ${access}`);
      }
      return { actor };
    }
  }
}
