// What this platform's services and routes receive: the AppContext every service imports with the
// runtimes of the service folders that keep process-wide state, each named by the module that builds
// it. services/context.ts names none of them, since the runtimes' own parts import it; the composition
// root (compose.ts) builds the whole, and the gateways hand it to routes.
import type { AppContext, RequestContext } from "#services/context.ts";
import type { WithInference } from "#services/inference/runtime.ts";
import type { WithKnowledge } from "#services/knowledge-base/runtime.ts";
import type { WithOrchestration } from "#services/orchestration/runtime.ts";

/** Built once per process: the inference runtime only where this process runs the inference gateway. */
export type PlatformContext = AppContext & WithOrchestration & WithKnowledge & WithInference;

/** One request's context on this platform. */
export type PlatformRequestContext = RequestContext & PlatformContext;
