// The worker side of off-loop.ts: evaluates a large text away from the request loop.
import { serveJobs } from "../workers/pool.ts";
import { evaluate } from "./evaluate.ts";
import type { OffLoopScan } from "./off-loop.ts";

serveJobs((job: OffLoopScan) => evaluate(job.text, job.policy, job.stage));
