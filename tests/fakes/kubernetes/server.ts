// A local stand-in for the subset of the Kubernetes API the kubernetes provider calls (FIELD-NOTES):
// apps/v1 Deployments (create, read, list by labelSelector, delete), v1 Services (create, delete),
// Pods listed by labelSelector, pods/log (timestamps, sinceTime, tailLines), nodes (GPU product
// labels, allocatable nvidia.com/gpu) and the service proxy path. Every call needs the Bearer
// token; `proxyUrl` is a second listener playing `kubectl proxy` (adds the token), which is what
// the gateway reaches the replicas through. A Deployment makes one pod, Pending then (after
// `podDelayMs`) Running and Ready, whose Service proxies to a real llama.cpp worker; an image in
// `unpullable` leaves the pod Pending with ErrImagePull.
import type { V1Deployment, V1DeploymentSpec, V1Service } from "@kubernetes/client-node";

/** A Deployment as the client sent it, or one a test planted (its metadata and replica count only). */
export type FakeDeployment = Omit<V1Deployment, "spec"> & { spec?: Partial<V1DeploymentSpec> };

/** A field the provider always sends; a manifest without it is answered with a 500. */
function sent<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new Error(`the manifest has no ${field}`);
  return value;
}

export interface FakePod {
  name: string;
  labels: Record<string, string>;
  deployment: string;
  phase: "Pending" | "Running";
  ready: boolean;
  waiting: { reason: string; message: string } | undefined;
  image: string;
  log: { ts: string; line: string }[];
}

export interface FakeNode {
  name: string;
  product: string | undefined;
  gpus: number;
}

export interface FakeKubernetes {
  baseUrl: string;
  /** `kubectl proxy`: the API without credentials (it adds them). */
  proxyUrl: string;
  token: string;
  namespace: string;
  deployments: Map<string, FakeDeployment>;
  services: Map<string, V1Service>;
  pods: Map<string, FakePod>;
  nodes: FakeNode[];
  /** Images the kubelet cannot pull. */
  unpullable: Set<string>;
  /** Every call as "METHOD path". */
  calls: string[];
  kubeconfig(): string;
  stop(): void;
}

const status = (code: number, reason: string, message: string) =>
  Response.json(
    { kind: "Status", apiVersion: "v1", status: "Failure", reason, message, code },
    { status: code },
  );

function matches(labels: Record<string, string>, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [k, v] = term.split("=");
    return k !== undefined && labels[k] === v;
  });
}

export function startFakeKubernetes(options: { workerUrl: string; podDelayMs?: number }): FakeKubernetes {
  const podDelayMs = options.podDelayMs ?? 300;
  const fake: FakeKubernetes = {
    baseUrl: "",
    proxyUrl: "",
    token: `kube_${crypto.randomUUID()}`,
    namespace: "llm",
    deployments: new Map(),
    services: new Map(),
    pods: new Map(),
    nodes: [
      { name: "cpu-1", product: undefined, gpus: 0 },
      { name: "gpu-l4", product: "NVIDIA-L4", gpus: 2 },
      { name: "gpu-a100", product: "NVIDIA-A100-SXM4-80GB", gpus: 1 },
    ],
    unpullable: new Set(),
    calls: [],
    kubeconfig: () => "",
    stop: () => {
      api.stop(true);
      proxy.stop(true);
    },
  };

  function podView(p: FakePod) {
    return {
      metadata: { name: p.name, namespace: fake.namespace, labels: p.labels },
      status: {
        phase: p.phase,
        conditions: [{ type: "Ready", status: p.ready ? "True" : "False" }],
        containerStatuses: [
          {
            name: "engine",
            image: p.image,
            ready: p.ready,
            restartCount: 0,
            state: p.waiting ? { waiting: p.waiting } : p.phase === "Running" ? { running: {} } : {},
          },
        ],
      },
    };
  }

  function createPod(deployment: V1Deployment, deploymentName: string) {
    const name = `${deploymentName}-${crypto.randomUUID().slice(0, 5)}`;
    const template = sent(deployment.spec?.template, "spec.template");
    const container = sent(template.spec?.containers[0], "container");
    const pod: FakePod = {
      name,
      labels: sent(template.metadata?.labels, "spec.template.metadata.labels"),
      deployment: deploymentName,
      phase: "Pending",
      ready: false,
      waiting: { reason: "ContainerCreating", message: "" },
      image: sent(container.image, "container image"),
      log: [],
    };
    fake.pods.set(name, pod);
    setTimeout(() => {
      if (!fake.pods.has(name)) return;
      if (fake.unpullable.has(pod.image)) {
        pod.waiting = {
          reason: "ErrImagePull",
          message: `failed to pull and unpack image "${pod.image}": not found`,
        };
        return;
      }
      pod.waiting = undefined;
      pod.phase = "Running";
      pod.ready = true;
      pod.log.push(
        {
          ts: new Date().toISOString(),
          line: `${container.command?.join(" ")} ${container.args?.join(" ")}`,
        },
        {
          ts: new Date(Date.now() + 1).toISOString(),
          line: "main: server is listening on http://0.0.0.0:8080",
        },
      );
    }, podDelayMs);
  }

  const api = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      fake.calls.push(`${req.method} ${path}`);
      if (req.headers.get("authorization") !== `Bearer ${fake.token}`)
        return status(401, "Unauthorized", "Unauthorized");
      const ns = fake.namespace;
      const selector = url.searchParams.get("labelSelector");

      const proxied = new RegExp(`^/api/v1/namespaces/${ns}/services/([^/:]+)(?::(\\d+))?/proxy(/.*)?$`).exec(
        path,
      );
      if (proxied) {
        if (!fake.services.has(proxied[1] as string))
          return status(404, "NotFound", `services "${proxied[1]}" not found`);
        const ready = [...fake.pods.values()].some((p) => p.deployment === proxied[1] && p.ready);
        if (!ready) return status(503, "ServiceUnavailable", "no endpoints available for service");
        return fetch(`${options.workerUrl}${proxied[3] ?? "/"}${url.search}`, {
          method: req.method,
          headers: { "content-type": req.headers.get("content-type") ?? "application/json" },
          body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
        });
      }

      const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
      if (path === deployments && req.method === "GET") {
        const items = [...fake.deployments.values()].filter((d) =>
          matches(d.metadata?.labels ?? {}, selector),
        );
        return Response.json({ kind: "DeploymentList", apiVersion: "apps/v1", metadata: {}, items });
      }
      if (path === deployments && req.method === "POST") {
        const body = (await req.json()) as V1Deployment;
        const metadata = sent(body.metadata, "metadata");
        const name = sent(metadata.name, "metadata.name");
        if (fake.deployments.has(name))
          return status(409, "AlreadyExists", `deployments.apps "${name}" already exists`);
        metadata.namespace = ns;
        metadata.uid = crypto.randomUUID();
        fake.deployments.set(name, body);
        createPod(body, name);
        return Response.json(body, { status: 201 });
      }
      const oneDeployment = new RegExp(`^${deployments}/([^/]+)$`).exec(path);
      if (oneDeployment) {
        const name = oneDeployment[1] as string;
        const d = fake.deployments.get(name);
        if (!d) return status(404, "NotFound", `deployments.apps "${name}" not found`);
        if (req.method === "GET") return Response.json(d);
        if (req.method === "DELETE") {
          fake.deployments.delete(name);
          for (const [podName, pod] of fake.pods) if (pod.deployment === name) fake.pods.delete(podName);
          return Response.json({ kind: "Status", apiVersion: "v1", status: "Success", details: { name } });
        }
      }

      const services = `/api/v1/namespaces/${ns}/services`;
      if (path === services && req.method === "POST") {
        const body = (await req.json()) as V1Service;
        const name = sent(body.metadata?.name, "metadata.name");
        if (fake.services.has(name)) return status(409, "AlreadyExists", `services "${name}" already exists`);
        fake.services.set(name, body);
        return Response.json(body, { status: 201 });
      }
      const oneService = new RegExp(`^${services}/([^/]+)$`).exec(path);
      if (oneService && req.method === "DELETE") {
        const name = oneService[1] as string;
        if (!fake.services.delete(name)) return status(404, "NotFound", `services "${name}" not found`);
        return Response.json({ kind: "Status", apiVersion: "v1", status: "Success", details: { name } });
      }

      if (path === `/api/v1/namespaces/${ns}/pods` && req.method === "GET") {
        const items = [...fake.pods.values()].filter((p) => matches(p.labels, selector)).map(podView);
        return Response.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items });
      }
      const log = new RegExp(`^/api/v1/namespaces/${ns}/pods/([^/]+)/log$`).exec(path);
      if (log) {
        const pod = fake.pods.get(log[1] as string);
        if (!pod) return status(404, "NotFound", `pods "${log[1]}" not found`);
        const since = url.searchParams.get("sinceTime");
        const tail = Number(url.searchParams.get("tailLines") ?? 0);
        let lines = pod.log.filter((l) => !since || new Date(l.ts).getTime() >= new Date(since).getTime());
        if (tail > 0) lines = lines.slice(-tail);
        const stamped = url.searchParams.get("timestamps") === "true";
        const text = lines.map((l) => (stamped ? `${l.ts} ${l.line}` : l.line)).join("\n");
        return new Response(text ? `${text}\n` : "", { headers: { "content-type": "text/plain" } });
      }

      if (path === "/api/v1/nodes" && req.method === "GET") {
        const items = fake.nodes.map((n) => ({
          metadata: {
            name: n.name,
            labels: {
              "kubernetes.io/hostname": n.name,
              ...(n.product ? { "nvidia.com/gpu.product": n.product } : {}),
            },
          },
          status: {
            allocatable: {
              cpu: "8",
              memory: "32Gi",
              ...(n.gpus ? { "nvidia.com/gpu": String(n.gpus) } : {}),
            },
          },
        }));
        return Response.json({ kind: "NodeList", apiVersion: "v1", metadata: {}, items });
      }
      return status(
        404,
        "NotFound",
        `the server could not find the requested resource (${req.method} ${path})`,
      );
    },
  });

  // `kubectl proxy`: forwards to the API server with the credentials.
  const proxy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      return fetch(`${fake.baseUrl}${url.pathname}${url.search}`, {
        method: req.method,
        headers: {
          "content-type": req.headers.get("content-type") ?? "application/json",
          authorization: `Bearer ${fake.token}`,
        },
        body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
      });
    },
  });

  fake.baseUrl = `http://127.0.0.1:${api.port}`;
  fake.proxyUrl = `http://127.0.0.1:${proxy.port}`;
  fake.kubeconfig = () =>
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: fake",
      "  cluster:",
      `    server: ${fake.baseUrl}`,
      // The fake serves plain HTTP, which client-node accepts only with TLS verification off.
      "    insecure-skip-tls-verify: true",
      "users:",
      "- name: platform",
      "  user:",
      `    token: ${fake.token}`,
      "contexts:",
      "- name: fake",
      "  context:",
      "    cluster: fake",
      "    user: platform",
      `    namespace: ${fake.namespace}`,
      "current-context: fake",
      "",
    ].join("\n");
  return fake;
}
