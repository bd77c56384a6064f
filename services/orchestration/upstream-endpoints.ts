// The upstream servers of an `external` deployment: operators commonly run vLLM or Ollama beside the
// platform, so loopback and private addresses are allowed by default. Pointing the platform at a server
// is provider configuration, so it takes `providers:write`; EXTERNAL_ENDPOINTS_ALLOW_PRIVATE=false
// refuses internal addresses (every address a host name resolves to is checked).
import { addressesOf, hostOf, isInternalAddress, isInternalHostLiteral } from "#adapters/net/addresses.ts";
import { AppError, type FieldProblem } from "#core/errors.ts";
import type { Actor, RequestContext } from "../context.ts";

export async function upstreamEndpointProblems(
  ctx: RequestContext,
  actor: Actor,
  endpoints: string[],
): Promise<FieldProblem[]> {
  if (endpoints.length === 0) return [];
  if (!actor.permissions.has("providers:write")) {
    throw new AppError(
      "forbidden",
      "configuration.endpoints points the platform at servers: that takes the providers:write permission",
    );
  }
  if (ctx.config.externalEndpointsAllowPrivate) return [];
  const problems: FieldProblem[] = [];
  await Promise.all(
    endpoints.map(async (endpoint, i) => {
      let internal: boolean;
      try {
        const host = hostOf(new URL(endpoint));
        internal = isInternalHostLiteral(host) || (await addressesOf(host)).some(isInternalAddress);
      } catch {
        internal = true; // unparsable or unresolvable: nothing shows it is public
      }
      if (internal) {
        problems.push({
          field: `configuration.endpoints.${i}`,
          message:
            "loopback, link-local and private addresses are not allowed here (EXTERNAL_ENDPOINTS_ALLOW_PRIVATE)",
        });
      }
    }),
  );
  return problems;
}
