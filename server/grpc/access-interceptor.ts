// The gRPC twin of the HTTP guard: every method declares one Access, this interceptor enforces it
// with the same authorize() and maps service errors through the same error table.
import { Code, ConnectError, createContextKey, type Interceptor } from "@connectrpc/connect";
import { AppError } from "#core/errors.ts";
import { isDatabaseUnreachable } from "#db/unreachable.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { authorize } from "#services/access/authorize.ts";
import type { Actor } from "#services/context.ts";
import type { Access } from "#services/permissions.ts";
import { errorTable } from "../error-table.ts";
import { checkJsonValue } from "../http/input.ts";

export const actorKey = createContextKey<Actor | undefined>(undefined, {
  description: "the authenticated caller",
});

/** `package.Service/Method` → what it requires. A method missing here is refused (fail closed). */
export type MethodAccess = ReadonlyMap<string, Access>;

export function toConnectError(error: unknown): ConnectError {
  if (error instanceof ConnectError) return error;
  if (error instanceof AppError) {
    return new ConnectError(error.message, errorTable[error.code].grpc);
  }
  if (isDatabaseUnreachable(error)) return new ConnectError("the database is unreachable", Code.Unavailable);
  return new ConnectError("internal error", Code.Internal);
}

export function accessInterceptor(app: PlatformContext, access: MethodAccess): Interceptor {
  return (next) => async (req) => {
    const required = access.get(`${req.service.typeName}/${req.method.name}`);
    if (!required) throw new ConnectError("this method declares no access", Code.PermissionDenied);
    try {
      // The same refusal of control characters as the HTTP gateways (a protobuf message nests deeper
      // than the JSON it stands for: Struct values take several levels each).
      if (!req.stream) checkJsonValue(req.message, "strict", "", 1024);
      const authorization = req.header.get("authorization") ?? "";
      const auth = await authorize(app, required, {
        bearer: /^bearer\s+/i.test(authorization)
          ? authorization.replace(/^bearer\s+/i, "").trim()
          : undefined,
        internalKey: req.header.get("x-internal-api-key") ?? undefined,
      });
      req.contextValues.set(actorKey, auth.actor);
      return await next(req);
    } catch (error) {
      if (!(error instanceof AppError) && !(error instanceof ConnectError)) {
        app.log.error("unhandled gRPC exception", { method: req.method.name, error });
      }
      throw toConnectError(error);
    }
  };
}
