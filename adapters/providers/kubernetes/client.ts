// The Kubernetes API of one organization's cluster through @kubernetes/client-node: a kubeconfig
// (`credentials.kubeconfig`, its current context) or, without one, the pod's service account
// (`/var/run/secrets/kubernetes.io/serviceaccount/`, when the platform runs in the cluster).
// `settings.namespace` overrides the context's namespace ("default" when neither says).
import { AppsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import type { ProviderAccess } from "../provider.ts";

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
  return {
    apps: kc.makeApiClient(AppsV1Api),
    core: kc.makeApiClient(CoreV1Api),
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
