// What the orchestration services share within one process: the providers (the local one remembers
// the workers it launched), the log hub, model downloads, and a way to wake the reconciler after a
// write. Built once by the composition root (server/compose.ts) and carried on the AppContext, so
// several platforms in one process (the test suite) each have their own.

import { createProviders, type ProviderRegistry } from "#adapters/providers/index.ts";
import { InProcessLoadStore, type LoadStore } from "#core/ports/load-store.ts";
import type { AppContext } from "../context.ts";
import { providerAccounts } from "../provider-configs/access.ts";
import { LogHub } from "./logs.ts";
import { ModelFetcher } from "./model-source.ts";
import { poolOfNodeToken } from "./node-token.ts";

// The orchestration runtime adds itself to what every service receives, as the inference runtime
// does, so that services/context.ts (which the runtime's own parts import) does not import it back.

/**
 * What a service that reaches the orchestration runtime receives beside the AppContext. The composition
 * root (server/platform-context.ts) carries it on every context it builds; services/context.ts names no
 * runtime, since the runtime's own parts import it.
 */
export interface WithOrchestration {
  /** The orchestration services' process-wide state (providers, log hub, model downloads). */
  readonly orchestration: OrchestrationRuntime;
}

export class OrchestrationRuntime {
  readonly logs = new LogHub();
  #wake: (() => void) | undefined;

  constructor(
    /** Replaceable as a whole: tests swap in fakes, as a new orchestration process would start afresh. */
    public providers: ProviderRegistry,
    readonly models: ModelFetcher,
    /** Where the inference gateways' load reports meet the autoscaler (core/ports/load-store.ts). */
    readonly load: LoadStore,
  ) {}

  /** Wakes the reconciler now rather than at its next tick; a no-op when none runs here. */
  kick(): void {
    this.#wake?.();
  }

  /** Is this bearer a pool's node token? The "node" access of the HTTP guard and gRPC interceptor asks. */
  async acceptsNodeToken(ctx: AppContext, token: string): Promise<boolean> {
    return (await poolOfNodeToken(ctx, token)) !== undefined;
  }

  /** The reconciler of this process says how to wake it; the function returned ends that. */
  wakeWith(wake: () => void): () => void {
    this.#wake = wake;
    return () => {
      if (this.#wake === wake) this.#wake = undefined;
    };
  }
}

/** `load`: the shared store the composition root chose (Redis, PostgreSQL), else this process's memory. */
export function createOrchestrationRuntime(
  ctx: Pick<AppContext, "db" | "config">,
  load: LoadStore = new InProcessLoadStore(),
): OrchestrationRuntime {
  return new OrchestrationRuntime(
    createProviders({ dataDir: ctx.config.dataDir, accounts: providerAccounts(ctx) }),
    new ModelFetcher(ctx.config.modelSources),
    load,
  );
}
