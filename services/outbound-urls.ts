// Which URLs this server may be made to call (the rules of services/config.ts's UrlRules): model sources
// (services/orchestration/model-source.ts) and providers' settings that name another API
// (services/provider-configs/urls.ts) both get this check. It lives at the root of services/, below
// both folders, so that neither has to import the other for it.
import {
  addressesOf,
  hostListed,
  hostOf,
  isInternalAddress,
  isInternalHostLiteral,
} from "#adapters/net/addresses.ts";
import { modelSourceVariables, type UrlRules } from "./config.ts";

/**
 * What can be said of a model URL without DNS: its scheme, and whether it names an internal address or
 * localhost. Container engines get URLs checked this far (they fetch from their own network).
 */
export function urlProblem(raw: string, rules: UrlCheck): string | undefined {
  const names = rules.variables ?? modelSourceVariables;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && rules.allowHttp)) {
    return rules.allowHttp
      ? "must be an http(s) URL"
      : `must be an https URL (${names.allowHttp} allows http)`;
  }
  if (url.username || url.password) return "must not carry credentials";
  if (hostListed(url, rules.allowedHosts)) return undefined;
  if (isInternalHostLiteral(hostOf(url))) return internalHost(names);
  return undefined;
}

/** The rules of a URL check; without `variables`, the model sources' own (MODEL_SOURCE_*). */
export type UrlCheck = Pick<UrlRules, "allowHttp" | "allowedHosts"> & { variables?: UrlRules["variables"] };

const internalHost = (names: UrlRules["variables"]) =>
  `names a loopback, link-local or private address (${names.allowedHosts} lists the ones allowed)`;

/** urlProblem, then every address the host resolves to must be public (or the host listed). */
export async function resolvedUrlProblem(raw: string, rules: UrlCheck): Promise<string | undefined> {
  const problem = urlProblem(raw, rules);
  if (problem) return problem;
  const url = new URL(raw);
  if (hostListed(url, rules.allowedHosts)) return undefined;
  let addresses: string[];
  try {
    addresses = await addressesOf(hostOf(url));
  } catch {
    return "its host does not resolve";
  }
  return addresses.length === 0 || addresses.some(isInternalAddress)
    ? internalHost(rules.variables ?? modelSourceVariables)
    : undefined;
}
