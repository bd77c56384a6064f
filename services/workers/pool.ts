// Work that may take long on a large input (guardrail scans of big texts, parsing and chunking of
// knowledge-base documents) runs here, on Bun Workers, so the request loop keeps answering (`/health`,
// every other tenant) while it runs. Each job has a deadline counted from its submission: a job still
// queued then is dropped, a job still running has its worker terminated (the only way to stop
// synchronous code) and replaced. Idle workers do not keep the process alive.
import { readlinkSync } from "node:fs";
import { availableParallelism, setPriority } from "node:os";

/** Nice value of a worker thread: below the request loop, above nothing else of ours. */
const WORKER_NICENESS = 10;

/** The job did not finish before its deadline; nothing of it is kept. */
export class DeadlineExceeded extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the work did not finish within ${deadlineMs} ms`);
  }
}

/** The job threw inside the worker: its message, never a stack. */
export class WorkerJobFailed extends Error {}

interface JobMessage<In> {
  id: number;
  input: In;
}

type ReplyMessage<Out> = { id: number; ok: true; value: Out } | { id: number; ok: false; message: string };

interface Job<In, Out> {
  id: number;
  input: In;
  resolve(value: Out): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
  slot?: Slot<In, Out>;
}

interface Slot<In, Out> {
  worker: Worker;
  job?: Job<In, Out>;
}

/** Inside a worker file: answers each job with `handle(input)`. */
export function serveJobs<In, Out>(handle: (input: In) => Out | Promise<Out>): void {
  yieldCoresToTheLoop();
  self.onmessage = async (event: MessageEvent<JobMessage<In>>) => {
    const { id, input } = event.data;
    let reply: ReplyMessage<Out>;
    try {
      reply = { id, ok: true, value: await handle(input) };
    } catch (error) {
      reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    self.postMessage(reply);
  };
}

/**
 * Lowers this worker thread's scheduling priority (Linux: setpriority on the thread's own id). On a
 * 2-core machine a parse and the database's inserts can hold both cores; /health and every other
 * request then waited for a core (165 ms beside a 60,000-heading upload, with the loop's own work at
 * 10 ms). Work handed off the loop is the work that may wait.
 */
function yieldCoresToTheLoop(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, WORKER_NICENESS);
  } catch {
    // Not Linux, or not permitted: the thread keeps the process's priority.
  }
}

/** The threads a pool may use: one core is left to the request loop. */
export function defaultPoolSize(): number {
  return Math.max(1, Math.min(2, availableParallelism() - 1));
}

export class WorkerPool<In, Out> {
  readonly #url: string;
  readonly #size: number;
  readonly #slots: Slot<In, Out>[] = [];
  readonly #queue: Job<In, Out>[] = [];
  #nextId = 0;

  constructor(url: URL, size = defaultPoolSize()) {
    this.#url = url.href;
    this.#size = size;
  }

  run(input: In, deadlineMs: number): Promise<Out> {
    // A deadline of zero has passed at submission: without this, a fast worker could beat the timer.
    if (deadlineMs <= 0) return Promise.reject(new DeadlineExceeded(deadlineMs));
    return new Promise<Out>((resolve, reject) => {
      const job: Job<In, Out> = {
        id: ++this.#nextId,
        input,
        resolve,
        reject,
        timer: setTimeout(() => this.#expire(job, deadlineMs), deadlineMs),
      };
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Terminates every worker; jobs still waiting fail. */
  close(): void {
    for (const job of this.#queue.splice(0)) this.#fail(job, new WorkerJobFailed("the pool was closed"));
    for (const slot of this.#slots.splice(0)) {
      if (slot.job) this.#fail(slot.job, new WorkerJobFailed("the pool was closed"));
      slot.worker.terminate();
    }
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => !s.job) ?? this.#spawn();
      if (!slot) return;
      const job = this.#queue.shift();
      if (!job) return;
      slot.job = job;
      job.slot = slot;
      keepAlive(slot.worker, true);
      const message: JobMessage<In> = { id: job.id, input: job.input };
      slot.worker.postMessage(message);
    }
  }

  #spawn(): Slot<In, Out> | undefined {
    if (this.#slots.length >= this.#size) return undefined;
    const slot: Slot<In, Out> = { worker: new Worker(this.#url) };
    keepAlive(slot.worker, false);
    slot.worker.onmessage = (event: MessageEvent<ReplyMessage<Out>>) => {
      const job = slot.job;
      if (!job || job.id !== event.data.id) return;
      this.#release(slot);
      clearTimeout(job.timer);
      if (event.data.ok) job.resolve(event.data.value);
      else job.reject(new WorkerJobFailed(event.data.message));
    };
    slot.worker.onerror = (event) => {
      event.preventDefault();
      const job = slot.job;
      this.#replace(slot);
      if (job) this.#fail(job, new WorkerJobFailed(event.message || "the worker failed"));
    };
    this.#slots.push(slot);
    return slot;
  }

  #release(slot: Slot<In, Out>): void {
    slot.job = undefined;
    keepAlive(slot.worker, false);
    this.#dispatch();
  }

  #replace(slot: Slot<In, Out>): void {
    slot.worker.terminate();
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    slot.job = undefined;
    this.#dispatch();
  }

  #expire(job: Job<In, Out>, deadlineMs: number): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) this.#queue.splice(queued, 1);
    else if (job.slot && job.slot.job === job) this.#replace(job.slot);
    job.reject(new DeadlineExceeded(deadlineMs));
  }

  #fail(job: Job<In, Out>, error: Error): void {
    clearTimeout(job.timer);
    job.reject(error);
  }
}

function keepAlive(worker: Worker, on: boolean): void {
  // lib.dom's Worker type hides Bun's ref() and unref().
  const bunWorker = worker as unknown as Bun.Worker;
  if (on) bunWorker.ref();
  else bunWorker.unref();
}
