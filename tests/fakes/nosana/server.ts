// A local stand-in for Nosana's deployment manager API (FIELD-NOTES; nosana-kit packages/api):
// Bearer API key, GET /api/markets/, POST /api/deployments/create (DRAFT), POST .../start
// (STARTING, its job QUEUED) then RUNNING after `startDelayMs` (job RUNNING, the endpoint online),
// POST .../stop (STOPPING then STOPPED), DELETE, GET .../events and .../jobs. A "running" job's
// endpoint is the URL of a real llama.cpp worker. `failNextStart` makes the next deployment end in
// ERROR with an image pull failure, as Nosana reports it in the deployment's events.
import type { NosanaMarket } from "#adapters/providers/nosana/client.ts";

interface FakeDeployment {
  id: string;
  name: string;
  status: string;
  market: string;
  replicas: number;
  timeout: number;
  strategy: string;
  job_definition: { ops: { args: { image: string; expose: number; env: Record<string, string> } }[] };
  jobs: { job: string; state: "QUEUED" | "RUNNING" | "STOPPED" }[];
  events: { category: string; type: string; message: string; created_at: string }[];
}

export interface FakeNosana {
  /** Base URL as the adapter's `settings.base_url` (…/api). */
  baseUrl: string;
  apiKey: string;
  markets: NosanaMarket[];
  deployments: Map<string, FakeDeployment>;
  /** Deployments not deleted (stopped ones included: they still exist at Nosana). */
  held(): FakeDeployment[];
  failNextStart: string | undefined;
  stop(): void;
}

export function startFakeNosana(options: { workerUrl: string; startDelayMs?: number }): FakeNosana {
  const startDelayMs = options.startDelayMs ?? 300;
  const deployments = new Map<string, FakeDeployment>();
  const event = (d: FakeDeployment, type: string, message: string) =>
    d.events.push({ category: "Deployment", type, message, created_at: new Date().toISOString() });

  const fake: FakeNosana = {
    baseUrl: "",
    apiKey: `nos_${crypto.randomUUID()}`,
    markets: [
      {
        address: "mkt-3060",
        slug: "nvidia-3060",
        gpu_types: ["NVIDIA RTX 3060"],
        usd_reward_per_hour: 0.048,
      },
      { address: "mkt-4090", slug: "nvidia-4090", gpu_types: ["NVIDIA RTX 4090"], usd_reward_per_hour: 0.32 },
      { address: "mkt-a100", slug: "nvidia-a100", gpu_types: ["NVIDIA A100 80GB"], usd_reward_per_hour: 1.1 },
    ],
    deployments,
    held: () => [...deployments.values()],
    failNextStart: undefined,
    stop: () => server.stop(true),
  };

  function start(d: FakeDeployment) {
    d.status = "STARTING";
    const job = {
      job: `job${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
      state: "QUEUED" as const,
    };
    d.jobs.push({ ...job });
    event(d, "JOB_LIST_SUCCESSFUL", `job ${job.job} queued on market ${d.market}`);
    const failure = fake.failNextStart;
    fake.failNextStart = undefined;
    setTimeout(() => {
      if (d.status !== "STARTING") return;
      const running = d.jobs.at(-1);
      if (failure) {
        d.status = "ERROR";
        if (running) running.state = "STOPPED";
        event(d, "JOB_ERROR", failure);
        return;
      }
      d.status = "RUNNING";
      if (running) running.state = "RUNNING";
      event(d, "JOB_RUNNING", `job ${running?.job} running`);
    }, startDelayMs);
  }

  const view = (d: FakeDeployment) => ({
    id: d.id,
    name: d.name,
    status: d.status,
    market: d.market,
    replicas: d.replicas,
    timeout: d.timeout,
    strategy: d.strategy,
    endpoints:
      d.job_definition.ops.map((op) => ({
        opId: "engine",
        port: op.args.expose,
        url: options.workerUrl,
        online: d.status === "RUNNING",
      })) ?? [],
  });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (request.headers.get("authorization") !== `Bearer ${fake.apiKey}`)
        return Response.json({ error: "Unauthorized", message: "invalid API key" }, { status: 401 });
      const url = new URL(request.url);
      const parts = url.pathname
        .replace(/^\/api/, "")
        .split("/")
        .filter(Boolean);
      const method = request.method;
      if (method === "GET" && parts[0] === "markets" && parts.length === 1)
        return Response.json(fake.markets);
      if (parts[0] !== "deployments") return Response.json({ message: "not found" }, { status: 404 });
      if (method === "GET" && parts.length === 1) return Response.json([...deployments.values()].map(view));
      if (method === "POST" && parts[1] === "create") {
        const body = (await request.json()) as Omit<FakeDeployment, "id" | "status" | "jobs" | "events">;
        if (!fake.markets.some((m) => m.address === body.market))
          return Response.json({ message: `market ${body.market} not found` }, { status: 400 });
        const d: FakeDeployment = {
          ...body,
          id: crypto.randomUUID().replaceAll("-", "").slice(0, 24),
          status: "DRAFT",
          jobs: [],
          events: [],
        };
        deployments.set(d.id, d);
        event(d, "DEPLOYMENT_CREATED", `deployment ${d.name} created`);
        return Response.json(view(d), { status: 201 });
      }
      const d = parts[1] ? deployments.get(parts[1]) : undefined;
      if (!d) return Response.json({ message: "Deployment not found" }, { status: 404 });
      const action = parts[2];
      if (method === "GET" && !action) return Response.json(view(d));
      if (method === "GET" && action === "events") return Response.json(d.events);
      if (method === "GET" && action === "jobs") return Response.json(d.jobs);
      if (method === "POST" && action === "start") {
        if (!["DRAFT", "STOPPED", "ERROR"].includes(d.status))
          return Response.json({ message: `cannot start a ${d.status} deployment` }, { status: 400 });
        start(d);
        return Response.json(view(d));
      }
      if (method === "POST" && action === "stop") {
        if (!["RUNNING", "STARTING"].includes(d.status))
          return Response.json({ message: `cannot stop a ${d.status} deployment` }, { status: 400 });
        d.status = "STOPPING";
        event(d, "DEPLOYMENT_STOPPING", "stopping");
        setTimeout(() => {
          d.status = "STOPPED";
          for (const j of d.jobs) j.state = "STOPPED";
          event(d, "DEPLOYMENT_STOPPED", "stopped");
        }, 100);
        return Response.json(view(d));
      }
      if (method === "DELETE" && !action) {
        if (["RUNNING", "STARTING", "STOPPING"].includes(d.status))
          return Response.json({ message: "stop the deployment first" }, { status: 400 });
        deployments.delete(d.id);
        return new Response(null, { status: 204 });
      }
      return Response.json({ message: "not found" }, { status: 404 });
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}/api`;
  return fake;
}
