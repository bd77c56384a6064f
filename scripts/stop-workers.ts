// `bun run stop-workers`: ends the llama.cpp workers that this checkout's platform left running (they
// outlive `bun start` on purpose: the next start adopts them), and no one else's. A worker carries its
// installation's tag (a hash of its data directory, DATA_DIR or ./data) in its environment, so another
// checkout's or another user's workers on the same host are never matched, as `pkill -f worker.ts` would.
// Stop the platform first, or it starts them again.

import { installationTag, taggedProcesses, terminate } from "#adapters/providers/local/processes.ts";
import { loadConfig } from "#server/config.ts";

const { dataDir } = loadConfig();
const workers = taggedProcesses(installationTag(dataDir));
await Promise.all(workers.map((w) => terminate(w.pid, undefined)));
console.log(`stopped ${workers.length} worker(s) of ${dataDir}`);
