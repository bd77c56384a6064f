// What a hosted deployment's requests need besides an endpoint: the upstream's model name, and the
// secret and options of the credential it names. The readiness probe (adapters/providers/external) and
// the request path (services/inference-context/resolve.ts) both read them here, so they agree.
//
// Where things live (docs/providers.md, "Hosted upstreams"):
// - the secret: the organization's `external` provider configuration, `credentials.<name>` (sealed);
// - the credential's non-secret options (Azure's `api_version`, OpenAI's `project`, a `flavor`):
//   that configuration's `settings.credential_options.<name>`, an object of strings;
// - which credential: the deployment's `configuration.credential`.
import type { DeploymentConfiguration, ProviderSettings } from "#core/options.ts";
import type { UpstreamTarget } from "./wire.ts";

/** The upstream target less its endpoint (the balancer picks the replica per request). */
export type HostedTarget = Omit<UpstreamTarget, "endpoint">;

export interface HostedAccess {
  credentials: Readonly<Record<string, string>> | undefined;
  settings: Readonly<ProviderSettings>;
}

export interface HostedDeployment {
  /** The deployment's name: the upstream's model when `inference_model` is not set. */
  name: string;
  inferenceModel: string | null;
  configuration: Readonly<DeploymentConfiguration>;
}

/** The credential a deployment names in `configuration.credential`, if any. */
export function credentialNameOf(configuration: Readonly<DeploymentConfiguration>): string | undefined {
  const name = configuration.credential;
  return typeof name === "string" && name !== "" ? name : undefined;
}

function optionsOf(settings: Readonly<ProviderSettings>, credential: string | undefined) {
  const all = settings.credential_options;
  if (!credential || typeof all !== "object" || all === null) return undefined;
  const mine: unknown = (all as { readonly [name: string]: unknown })[credential];
  if (typeof mine !== "object" || mine === null) return undefined;
  const strings = Object.entries(mine).filter((e): e is [string, string] => typeof e[1] === "string");
  return strings.length > 0 ? Object.fromEntries(strings) : undefined;
}

export function hostedTargetOf(deployment: HostedDeployment, access: HostedAccess): HostedTarget {
  const credential = credentialNameOf(deployment.configuration);
  const apiKey = credential ? access.credentials?.[credential] : undefined;
  const options = optionsOf(access.settings, credential);
  return {
    model: deployment.inferenceModel || deployment.name,
    ...(apiKey ? { apiKey } : {}),
    ...(options ? { options } : {}),
  };
}
