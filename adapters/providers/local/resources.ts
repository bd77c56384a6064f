// What this machine offers: cores, memory, and NVIDIA GPUs when nvidia-smi is there to ask.
import { cpus, freemem, totalmem } from "node:os";
import type { ProviderResources } from "../provider.ts";

const mib = (bytes: number) => Math.floor(bytes / (1024 * 1024));

function nvidiaGpus(): ProviderResources["gpus"] {
  const smi = Bun.which("nvidia-smi");
  if (!smi) return [];
  try {
    const run = Bun.spawnSync([smi, "--query-gpu=name,memory.total", "--format=csv,noheader,nounits"], {
      stdout: "pipe",
      stderr: "ignore",
      timeout: 3000,
    });
    if (run.exitCode !== 0) return [];
    const byName = new Map<string, { memory_mib: number | null; count: number }>();
    for (const line of run.stdout.toString().split("\n")) {
      const [name, memory] = line.split(",").map((s) => s.trim());
      if (!name) continue;
      const seen = byName.get(name) ?? { memory_mib: Number(memory) || null, count: 0 };
      seen.count++;
      byName.set(name, seen);
    }
    return [...byName].map(([name, g]) => ({
      name,
      memory_mib: g.memory_mib,
      count: g.count,
      price_per_hour: null,
    }));
  } catch {
    return [];
  }
}

export function machineResources(): ProviderResources {
  const cores = cpus();
  const gpus = nvidiaGpus();
  return {
    provider: "local",
    cpu: { cores: cores.length, model: cores[0]?.model ?? null },
    memory: { total_mib: mib(totalmem()), free_mib: mib(freemem()) },
    gpus,
    notes: [
      "Replicas run as llama.cpp worker processes on this machine (CPU build by default).",
      ...(gpus.length === 0 ? ["No GPU found (nvidia-smi absent or found none)."] : []),
    ],
  };
}
