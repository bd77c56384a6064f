// The four remote providers' fakes as one long-running process, for trying the adapters by hand
// against a running platform (`bun start`) without an account anywhere: each fake follows its
// provider's documented API (FIELD-NOTES) and points the replicas it "runs" at one real llama.cpp
// worker of the tiny model. Prints, per provider, the settings and credentials to give
// POST /management/config/providers.
//
//   bun tests/fakes/serve.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAkash } from "./akash/server.ts";
import { startFakeKubernetes } from "./kubernetes/server.ts";
import { startFakeNosana } from "./nosana/server.ts";
import { startFakeSkyPilot } from "./skypilot/server.ts";
import { startTinyWorker } from "./support/tiny-worker.ts";

const worker = await startTinyWorker(mkdtempSync(join(tmpdir(), "provider-fakes-")), "tiny");
const workerHost = new URL(worker.url).host;
const nosana = startFakeNosana({ workerUrl: worker.url });
const akash = startFakeAkash({ workerHost });
const skypilot = startFakeSkyPilot({ workerHost });
const kubernetes = startFakeKubernetes({ workerUrl: worker.url });

const providers = {
  nosana: { settings: { base_url: nosana.baseUrl }, credentials: { api_key: nosana.apiKey } },
  akash: { settings: { base_url: akash.baseUrl, bid_wait_s: 0 }, credentials: { api_key: akash.apiKey } },
  skypilot: { settings: { base_url: skypilot.baseUrl }, credentials: { token: skypilot.token } },
  kubernetes: {
    settings: { endpoint_mode: "service-proxy", proxy_url: kubernetes.proxyUrl },
    credentials: { kubeconfig: kubernetes.kubeconfig() },
  },
};
for (const [provider, body] of Object.entries(providers)) console.log(JSON.stringify({ provider, ...body }));
console.log(
  `# the fakes' replicas answer from the tiny llama.cpp worker at ${worker.url}; Ctrl-C or kill stops all` +
    " (the platform needs PROVIDER_URL_ALLOWED_HOSTS=127.0.0.1 PROVIDER_URL_ALLOW_HTTP=true to reach them)",
);

// Ctrl-C, or `kill` from a script (a script's background job ignores SIGINT), stops the worker too.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, async () => {
    await worker.stop();
    process.exit(0);
  });
