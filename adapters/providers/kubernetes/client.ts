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
//
// The client is imported on the first call, not at start: its ~870 modules cost a process that never
// talks to a cluster about 60 MB resident and 0.8 s of start (docs/performance.md, "Start-up and idle").
import type { RequestOptions } from "node:https";
import type { AppsV1Api, CoreV1Api, KubeConfig, RequestContext } from "@kubernetes/client-node";
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

type KubeClient = typeof import("@kubernetes/client-node");

export async function kubeApi(access: ProviderAccess): Promise<KubeApi> {
  const k8s: KubeClient = await import("@kubernetes/client-node");
  const kc = new k8s.KubeConfig();
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
  const configuration = k8s.createConfiguration({
    baseServer: new k8s.ServerConfiguration(cluster.server, {}),
    authMethods: { default: kc },
    httpApi: bunHttpLibrary(k8s, kc),
  });
  return {
    apps: new k8s.AppsV1Api(configuration),
    core: new k8s.CoreV1Api(configuration),
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

function bunHttpLibrary(k8s: KubeClient, kc: KubeConfig) {
  let tls: ReturnType<typeof tlsOf> | undefined;
  return k8s.wrapHttpLibrary({
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
      return new k8s.ResponseContext(response.status, headers, {
        text: async () => body.toString("utf8"),
        binary: async () => body,
        stream: () => null,
      } as unknown as ConstructorParameters<KubeClient["ResponseContext"]>[2]);
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
