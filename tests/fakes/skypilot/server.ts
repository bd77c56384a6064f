// A local stand-in for the SkyPilot API server (FIELD-NOTES; sky/server/server.py): every POST
// answers with X-Skypilot-Request-ID; GET /api/status?request_ids= peeks, GET /api/get waits (500
// with {detail} when the request failed); GET /api/stream gives a request's output. /launch goes
// PENDING -> RUNNING -> SUCCEEDED after `launchDelayMs`, its cluster INIT then UP; /status,
// /endpoints (the engine's port: a real llama.cpp worker), /cost_report (hourly prices per
// accelerator, spot cheaper) and /down. `failNextLaunch` fails the next launch (e.g. no quota).
interface FakeRequest {
  request_id: string;
  name: string;
  status: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
  return_value: string | null;
  error: { type: string; message: string } | null;
  output: string[];
}

export interface FakeCluster {
  name: string;
  status: "INIT" | "UP" | "STOPPED";
  /** What launch was given; null for a cluster a test planted (made behind the platform's back). */
  task: FakeTask | null;
  launchedAt: number;
  hourly: number;
}

/** The launched task, as the adapter writes it (adapters/providers/skypilot/task.ts): what is read of it. */
export interface FakeTask {
  name: string;
  resources: {
    accelerators?: Record<string, number>;
    any_of?: { accelerators: Record<string, number> }[];
    cpus?: string | number;
    use_spot: boolean;
    max_hourly_cost?: number;
    ports: number[];
    image_id: string;
    labels: Record<string, string>;
  };
  envs: Record<string, string>;
  run: string;
}

/**
 * A POST's body: /launch sends task and cluster_name, /status cluster_names, /endpoints cluster and
 * port, /down cluster_name; each path reads only its own fields.
 */
interface RequestBody {
  task: string;
  cluster_name: string;
  cluster_names?: string[];
  cluster: string;
  port: number;
}

export interface FakeSkyPilot {
  baseUrl: string;
  token: string;
  clusters: Map<string, FakeCluster>;
  requests: Map<string, FakeRequest>;
  /** On-demand dollars per hour per accelerator; spot is 30 % of it. */
  prices: Record<string, number>;
  failNextLaunch: { type: string; message: string } | undefined;
  /** Whether launch honours resources.max_hourly_cost (newer servers do; older ones ignore it). */
  honorMaxHourlyCost: boolean;
  stop(): void;
}

export function startFakeSkyPilot(options: { workerHost: string; launchDelayMs?: number }): FakeSkyPilot {
  const launchDelayMs = options.launchDelayMs ?? 300;
  const clusters = new Map<string, FakeCluster>();
  const requests = new Map<string, FakeRequest>();
  /** Each request's end (SUCCEEDED or FAILED), awaited by GET /api/get. */
  const endings = new Map<string, Promise<void>>();
  const fake: FakeSkyPilot = {
    baseUrl: "",
    token: `sky_${crypto.randomUUID()}`,
    clusters,
    requests,
    prices: { A100: 3.67, L4: 0.71, T4: 0.35 },
    failNextLaunch: undefined,
    honorMaxHourlyCost: true,
    stop: () => server.stop(true),
  };

  function request(name: string, run: (r: FakeRequest) => void, delayMs = 0): Response {
    const r: FakeRequest = {
      request_id: crypto.randomUUID(),
      name,
      status: "PENDING",
      return_value: null,
      error: null,
      output: [],
    };
    requests.set(r.request_id, r);
    const ended = Promise.withResolvers<void>();
    endings.set(r.request_id, ended.promise);
    const finish = () => {
      try {
        run(r);
      } catch (error) {
        r.status = "FAILED";
        r.error = { type: "Exception", message: String(error) };
      }
      ended.resolve();
    };
    if (delayMs === 0) finish();
    else setTimeout(() => (r.status = "RUNNING"), Math.min(50, delayMs / 2));
    if (delayMs > 0) setTimeout(finish, delayMs);
    return new Response(JSON.stringify({}), {
      headers: { "content-type": "application/json", "X-Skypilot-Request-ID": r.request_id },
    });
  }
  const succeed = (r: FakeRequest, value: unknown) => {
    r.status = "SUCCEEDED";
    r.return_value = JSON.stringify(value);
  };

  function cheapest(task: FakeTask): { hourly: number; accelerator: string } {
    const res = task.resources;
    const options = res.any_of
      ? res.any_of.map((o) => o.accelerators)
      : res.accelerators
        ? [res.accelerators]
        : [];
    const priced = options
      .flatMap((acc) =>
        Object.entries(acc).map(([name, count]) => ({ name, hourly: (fake.prices[name] ?? 99) * count })),
      )
      .sort((a, b) => a.hourly - b.hourly);
    const best = priced[0] ?? { name: "cpu", hourly: 0.1 };
    return {
      hourly: res.use_spot ? Math.round(best.hourly * 0.3 * 1e4) / 1e4 : best.hourly,
      accelerator: best.name,
    };
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.headers.get("authorization") !== `Bearer ${fake.token}`)
        return Response.json({ detail: "Unauthorized" }, { status: 401 });
      const url = new URL(req.url);
      const path = url.pathname;
      if (req.method === "GET" && path === "/api/status") {
        const ids = url.searchParams.getAll("request_ids");
        return Response.json([...requests.values()].filter((r) => ids.includes(r.request_id)));
      }
      if (req.method === "GET" && path === "/api/get") {
        const r = requests.get(url.searchParams.get("request_id") ?? "");
        if (!r) return Response.json({ detail: "Request not found" }, { status: 404 });
        await endings.get(r.request_id);
        if (r.status === "FAILED")
          return Response.json({ detail: `${r.error?.type}: ${r.error?.message}` }, { status: 500 });
        return Response.json(r);
      }
      if (req.method === "GET" && path === "/api/stream") {
        const r = requests.get(url.searchParams.get("request_id") ?? "");
        if (!r) return Response.json({ detail: "Request not found" }, { status: 404 });
        return new Response(r.output.map((l) => `${l}\n`).join(""));
      }
      if (req.method !== "POST") return Response.json({ detail: "Not Found" }, { status: 404 });
      const body = (await req.json()) as RequestBody;
      switch (path) {
        case "/launch": {
          const task: FakeTask = JSON.parse(body.task);
          const { hourly, accelerator } = cheapest(task);
          const ceiling = task.resources.max_hourly_cost;
          const failure =
            fake.failNextLaunch ??
            (fake.honorMaxHourlyCost && typeof ceiling === "number" && hourly > ceiling
              ? {
                  type: "ResourcesUnavailableError",
                  message: `No resource satisfying max_hourly_cost=${ceiling} (cheapest: ${accelerator} at $${hourly}/h)`,
                }
              : undefined);
          fake.failNextLaunch = undefined;
          if (!failure) {
            clusters.set(body.cluster_name, {
              name: body.cluster_name,
              status: "INIT",
              task,
              launchedAt: Date.now(),
              hourly,
            });
          }
          return request(
            "launch",
            (r) => {
              r.output.push(
                `Launching ${body.cluster_name}: ${accelerator}${task.resources.use_spot ? " [spot]" : ""}`,
              );
              if (failure) {
                r.output.push(`Failed to provision ${accelerator}: ${failure.message}`);
                r.status = "FAILED";
                r.error = failure;
                return;
              }
              const c = clusters.get(body.cluster_name);
              if (c) c.status = "UP";
              r.output.push(`Cluster ${body.cluster_name} is UP on ${accelerator}`, "Job submitted, ID: 1");
              succeed(r, [1, { cluster_name: body.cluster_name }]);
            },
            launchDelayMs,
          );
        }
        case "/status":
          return request("status", (r) =>
            succeed(
              r,
              [...clusters.values()]
                .filter((c) => !body.cluster_names || body.cluster_names.includes(c.name))
                .map((c) => ({
                  name: c.name,
                  status: c.status,
                  launched_at: Math.floor(c.launchedAt / 1000),
                })),
            ),
          );
        case "/endpoints":
          return request("endpoints", (r) => {
            const c = clusters.get(body.cluster);
            if (c?.status !== "UP") throw new Error(`cluster ${body.cluster} is not UP`);
            succeed(r, { [String(body.port)]: options.workerHost });
          });
        case "/cost_report":
          return request("cost_report", (r) =>
            succeed(
              r,
              [...clusters.values()].map((c) => {
                const duration = Math.max(1, (Date.now() - c.launchedAt) / 1000);
                return { name: c.name, duration, total_cost: (c.hourly * duration) / 3600 };
              }),
            ),
          );
        case "/down":
          return request(
            "down",
            (r) => {
              clusters.delete(body.cluster_name);
              succeed(r, null);
            },
            100,
          );
        default:
          return Response.json({ detail: "Not Found" }, { status: 404 });
      }
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}`;
  return fake;
}
