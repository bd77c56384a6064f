// The per-call context a gRPC method hands to the services: the same RequestContext the HTTP guard
// builds, with the caller the access interceptor put in the context values.
import type { HandlerContext } from "@connectrpc/connect";
import type { PlatformContext, PlatformRequestContext } from "#server/platform-context.ts";
import { actorKey } from "../access-interceptor.ts";

let sequence = 0;

export function requestContextOf(app: PlatformContext, call: HandlerContext): PlatformRequestContext {
  return {
    ...app,
    requestId:
      call.requestHeader.get("x-request-id")?.slice(0, 128) ||
      `grpc_${process.pid.toString(36)}_${(++sequence).toString(36)}`,
    actor: call.values.get(actorKey),
    ip: undefined,
    userAgent: call.requestHeader.get("user-agent") ?? undefined,
  };
}

/** Proto3 strings are "" when unset; the services take undefined for "not given". */
export const given = (value: string): string | undefined => (value === "" ? undefined : value);
