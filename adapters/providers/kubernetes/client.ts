// The Kubernetes API of one organization's cluster through @kubernetes/client-node: a kubeconfig
// (`credentials.kubeconfig`, its current context) or, without one, the pod's service account
// (`/var/run/secrets/kubernetes.io/serviceaccount/`, when the platform runs in the cluster).
// `settings.namespace` overrides the context's namespace ("default" when neither says).
//
// The client's own HTTP library hands its TLS settings (cluster CA, client certificate) to undici
// as a `dispatcher`, which Bun's fetch ignores: under Bun a cluster with its own CA fails with "self
// signed certificate" (tried: tests/providers/kubernetes-tls.test.ts). So the API classes get an
// HTTP library on Bun's fetch with the same settings as its `tls` option; the generated API
// classes, their types and the kubeconfig's authentication (token, exec, OIDC) stay the client's.
import type { RequestOptions } from "node:https";
import {
  AppsV1Api,
  CoreV1Api,
  createConfiguration,
  KubeConfig,
  type RequestContext,
  ResponseContext,
  ServerConfiguration,
  wrapHttpLibrary,
} from "@kubernetes/client-node";
import type { ProviderAccess } from "../provider.ts";
import type { InstanceAccounts } from "../remote-accounts.ts";

export interface KubeApi {
  apps: AppsV1Api;
  core: CoreV1Api;
  namespace: string;
  /** The API server's URL (the service proxy endpoints start with it). */
  server: string;
  inCluster: boolean;
}

export function kubeApi(access: ProviderAccess): KubeApi {
  const kc = new KubeConfig();
  const kubeconfig = access.credentials?.kubeconfig;
  if (kubeconfig) kc.loadFromString(kubeconfig);
  else kc.loadFromCluster();
  const contextNamespace = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const namespace =
    (typeof access.settings.namespace === "string" && access.settings.namespace) ||
    contextNamespace ||
    "default";
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: bunHttpLibrary(kc),
  });
  return {
    apps: new AppsV1Api(configuration),
    core: new CoreV1Api(configuration),
    namespace,
    server: (kc.getCurrentCluster()?.server ?? "").replace(/\/+$/, ""),
    inCluster: !kubeconfig,
  };
}

/** Whether the error is the API server's 404 (what was asked for does not exist). */
export const isNotFound = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === 404;

/** The API server's own message for a failed call (a Status object), else the error's. */
export function kubeFailure(error: unknown): string {
  const body = (error as { body?: unknown })?.body;
  if (typeof body === "string") {
    try {
      const status = JSON.parse(body) as { message?: string; reason?: string };
      if (status.message) return `${status.reason ?? "Failure"}: ${status.message}`;
    } catch {}
  }
  return error instanceof Error ? error.message : String(error);
}

/** The kubeconfig's TLS settings (CA, client certificate, skip verification) as Bun's fetch takes them. */
async function tlsOf(kc: KubeConfig) {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return {
    ...(opts.ca ? { ca: opts.ca as string | Buffer } : {}),
    ...(opts.cert ? { cert: opts.cert as string | Buffer } : {}),
    ...(opts.key ? { key: opts.key as string | Buffer } : {}),
    ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
  };
}

function bunHttpLibrary(kc: KubeConfig) {
  let tls: ReturnType<typeof tlsOf> | undefined;
  return wrapHttpLibrary({
    async send(request: RequestContext) {
      tls ??= tlsOf(kc);
      const response = await fetch(request.getUrl(), {
        method: request.getHttpMethod().toString(),
        body: request.getBody() as BodyInit | undefined,
        headers: request.getHeaders(),
        signal: request.getSignal() ?? null,
        tls: await tls,
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const body = Buffer.from(await response.arrayBuffer());
      return new ResponseContext(response.status, headers, {
        text: async () => body.toString("utf8"),
        binary: async () => body,
        stream: () => null,
      } as unknown as ConstructorParameters<typeof ResponseContext>[2]);
    },
  });
}

/** The pod's own service account, when this process runs in a cluster (no kubeconfig stored). */
export const inClusterAccess = (): ProviderAccess[] =>
  process.env.KUBERNETES_SERVICE_HOST ? [{ credentials: {}, settings: {} }] : [];

/** The account of an instance; in the cluster without a stored configuration, the service account. */
export async function accessOf(
  accounts: InstanceAccounts,
  handle: { replicaId: string; providerInstanceId: string },
): Promise<ProviderAccess> {
  try {
    return await accounts.of(handle);
  } catch (error) {
    const inCluster = inClusterAccess()[0];
    if (inCluster) return inCluster;
    throw error;
  }
}
