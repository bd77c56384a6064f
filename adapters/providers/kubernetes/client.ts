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
import type { AppsV1Api, CoreV1Api, KubeConfig, RequestContext, ResponseBody } from "@kubernetes/client-node";
import { propertyOf } from "#core/error-chain.ts";
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
export const isNotFound = (error: unknown) => propertyOf(error, "code") === 404;

/** The API server's own message for a failed call (a Status object), else the error's. */
export function kubeFailure(error: unknown): string {
  const body = propertyOf(error, "body");
  if (typeof body === "string") {
    try {
      const status: unknown = JSON.parse(body);
      const message = propertyOf(status, "message");
      const reason = propertyOf(status, "reason");
      if (typeof message === "string" && message)
        return `${typeof reason === "string" ? reason : "Failure"}: ${message}`;
    } catch {}
  }
  return error instanceof Error ? error.message : String(error);
}

/** The kubeconfig's TLS settings (CA, client certificate, skip verification) as Bun's fetch takes them. */
async function tlsOf(kc: KubeConfig) {
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  return {
    ...(opts.ca ? { ca: opts.ca } : {}),
    ...(opts.cert ? { cert: opts.cert } : {}),
    // A key object (never what a kubeconfig gives) is not something Bun's fetch takes.
    ...((typeof opts.key === "string" && opts.key !== "") || Buffer.isBuffer(opts.key)
      ? { key: opts.key }
      : {}),
    ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
  };
}

/** The API classes send JSON text (or nothing); a form body (the client's own FormData) has no use here. */
function fetchBody(body: ReturnType<RequestContext["getBody"]>): string | URLSearchParams | undefined {
  if (body === undefined || typeof body === "string" || body instanceof URLSearchParams) return body;
  throw new Error("the Kubernetes client sent a form body, which this transport does not send");
}

function bunHttpLibrary(k8s: KubeClient, kc: KubeConfig) {
  let tls: ReturnType<typeof tlsOf> | undefined;
  return k8s.wrapHttpLibrary({
    async send(request: RequestContext) {
      tls ??= tlsOf(kc);
      const response = await fetch(request.getUrl(), {
        method: request.getHttpMethod().toString(),
        body: fetchBody(request.getBody()),
        headers: request.getHeaders(),
        signal: request.getSignal() ?? null,
        tls: await tls,
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const body = Buffer.from(await response.arrayBuffer());
      const responseBody: ResponseBody = {
        text: async () => body.toString("utf8"),
        binary: async () => body,
        stream: () => null,
      };
      return new k8s.ResponseContext(response.status, headers, responseBody);
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
