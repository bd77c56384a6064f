// A local stand-in for the Akash Console API (FIELD-NOTES; akash-network/console apps/api):
// `x-api-key`, bodies and answers in `{data}`. POST /v1/deployments creates an active deployment
// (dseq, manifest); bids arrive after `bidDelayMs` from the fake providers whose GPU model the
// SDL allows; POST /v1/leases takes the manifest and one bid, then the lease's service gets a URI
// (a real llama.cpp worker) and a ready replica after `leaseDelayMs`; DELETE closes it all.
interface FakeProvider {
  address: string;
  gpuModel: string;
  price: { denom: string; amount: string };
}

interface FakeLease {
  id: { owner: string; dseq: string; gseq: number; oseq: number; provider: string };
  state: "active" | "closed";
  price: { denom: string; amount: string };
  ready: boolean;
}

interface FakeAkashDeployment {
  dseq: string;
  sdl: string;
  deposit: number;
  manifest: string;
  state: "active" | "closed";
  createdAt: number;
  bids: { provider: FakeProvider; state: "open" | "active" | "closed" | "lost" }[];
  leases: FakeLease[];
}

export interface FakeAkash {
  baseUrl: string;
  apiKey: string;
  providers: FakeProvider[];
  deployments: Map<string, FakeAkashDeployment>;
  /** Deployments still open (escrow paying): what "holds nothing" is about. */
  active(): FakeAkashDeployment[];
  stop(): void;
}

const owner = "akash1owner";

export function startFakeAkash(options: {
  workerHost: string;
  bidDelayMs?: number;
  leaseDelayMs?: number;
}): FakeAkash {
  const bidDelayMs = options.bidDelayMs ?? 200;
  const leaseDelayMs = options.leaseDelayMs ?? 200;
  let nextDseq = 21_000_000;
  const deployments = new Map<string, FakeAkashDeployment>();
  const fake: FakeAkash = {
    baseUrl: "",
    apiKey: `akt_${crypto.randomUUID()}`,
    providers: [
      { address: "akash1cheap4090", gpuModel: "rtx4090", price: { denom: "uact", amount: "100" } },
      { address: "akash1dear4090", gpuModel: "rtx4090", price: { denom: "uact", amount: "900" } },
      { address: "akash1a100", gpuModel: "a100", price: { denom: "uact", amount: "2000" } },
    ],
    deployments,
    active: () => [...deployments.values()].filter((d) => d.state === "active"),
    stop: () => server.stop(true),
  };
  const ok = (data: unknown, status = 200) => Response.json({ data }, { status });
  const bidView = (d: FakeAkashDeployment) =>
    d.bids.map((b) => ({
      bid: {
        id: { owner, dseq: d.dseq, gseq: 1, oseq: 1, provider: b.provider.address },
        state: b.state,
        price: b.provider.price,
      },
    }));
  const deploymentView = (d: FakeAkashDeployment) => ({
    deployment: { id: { owner, dseq: d.dseq }, state: d.state },
    leases: d.leases.map((l) => ({
      id: l.id,
      state: l.state,
      price: l.price,
      status:
        l.state === "active"
          ? {
              services: {
                engine: l.ready
                  ? { uris: [options.workerHost], ready_replicas: 1, available: 1, total: 1 }
                  : { uris: [], ready_replicas: 0, available: 0, total: 1 },
              },
            }
          : null,
    })),
  });

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      if (request.headers.get("x-api-key") !== fake.apiKey)
        return Response.json({ error: "Unauthorized", message: "Invalid API key" }, { status: 401 });
      const url = new URL(request.url);
      const path = url.pathname;
      if (request.method === "POST" && path === "/v1/deployments") {
        const { data } = (await request.json()) as { data: { sdl: string; deposit: number } };
        if (!data?.sdl?.includes('version: "2.0"'))
          return Response.json({ error: "BadRequest", message: "invalid SDL" }, { status: 400 });
        const dseq = String(nextDseq++);
        const d: FakeAkashDeployment = {
          dseq,
          sdl: data.sdl,
          deposit: data.deposit,
          manifest: JSON.stringify([{ name: "dcloud", services: [{ name: "engine" }] }]),
          state: "active",
          createdAt: Date.now(),
          bids: [],
          leases: [],
        };
        deployments.set(dseq, d);
        setTimeout(() => {
          if (d.state !== "active") return;
          // A provider bids when it has a GPU model the SDL accepts (an SDL that lists no model accepts every one).
          const models = [...d.sdl.matchAll(/model: "([^"]+)"/g)].map((m) => m[1]);
          for (const p of fake.providers)
            if (models.length === 0 || models.includes(p.gpuModel))
              d.bids.push({ provider: p, state: "open" });
        }, bidDelayMs);
        return ok({ dseq, manifest: d.manifest }, 201);
      }
      if (request.method === "GET" && path === "/v1/bids") {
        const d = deployments.get(url.searchParams.get("dseq") ?? "");
        return d ? ok(bidView(d)) : ok([]);
      }
      if (request.method === "POST" && path === "/v1/leases") {
        const body = (await request.json()) as {
          manifest: string;
          leases: { dseq: string; gseq: number; oseq: number; provider: string }[];
        };
        const wanted = body.leases[0];
        const d = wanted ? deployments.get(wanted.dseq) : undefined;
        const bid = d?.bids.find((b) => b.provider.address === wanted?.provider && b.state === "open");
        if (!d || !bid || !wanted)
          return Response.json({ error: "BadRequest", message: "no open bid" }, { status: 400 });
        if (body.manifest !== d.manifest)
          return Response.json({ error: "BadRequest", message: "manifest mismatch" }, { status: 400 });
        for (const b of d.bids) b.state = b === bid ? "active" : "lost";
        const lease: FakeLease = {
          id: { owner, dseq: d.dseq, gseq: wanted.gseq, oseq: wanted.oseq, provider: wanted.provider },
          state: "active",
          price: bid.provider.price,
          ready: false,
        };
        d.leases.push(lease);
        setTimeout(() => {
          lease.ready = lease.state === "active";
        }, leaseDelayMs);
        return ok({ deployment: deploymentView(d) });
      }
      const m = /^\/v1\/deployments\/(\d+)$/.exec(path);
      const d = m?.[1] ? deployments.get(m[1]) : undefined;
      if (!d) return Response.json({ error: "NotFound", message: "Deployment not found" }, { status: 404 });
      if (request.method === "GET") return ok(deploymentView(d));
      if (request.method === "DELETE") {
        d.state = "closed";
        for (const l of d.leases) l.state = "closed";
        for (const b of d.bids) if (b.state === "open") b.state = "closed";
        return ok({ success: true });
      }
      return Response.json({ error: "NotFound", message: "not found" }, { status: 404 });
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}`;
  return fake;
}
