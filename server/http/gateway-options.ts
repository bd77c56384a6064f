// What a gateway is built from (server/http/gateway.ts): its routes, how it reads credentials and
// renders problems, its limits, checks, headers and metric registries.

import type { PlatformContext } from "#server/platform-context.ts";
import type { Credentials } from "#services/access/authorize.ts";
import type { LoadedRoute, LoadedWsRoute } from "./loader.ts";
import type { RegistrySource } from "./metrics.ts";
import type { Problem } from "./problems.ts";
import type { GatewayName } from "./route.ts";

export interface GatewayOptions {
  name: GatewayName;
  title: string;
  description: string;
  app: PlatformContext;
  routes: LoadedRoute[];
  /** WebSocket routes (a route file's `WS` export). */
  sockets?: LoadedWsRoute[];
  errorStyle?: "platform" | "openai";
  /** Where credentials come from; default: Authorization bearer and X-Internal-API-Key. */
  credentials?: (request: Request) => Credentials;
  /** Renders a problem itself (the dashboard redirects to sign-in); undefined falls back to JSON. */
  renderProblem?: (problem: Problem, request: Request) => Response | undefined;
  readinessChecks?: Record<string, () => Promise<void>>;
  bodyLimitBytes?: number;
  /** Bodies are browser forms (the dashboard), where every value is text: Elysia's coercions stay. */
  formBodies?: boolean;
  docs?: boolean;
  /** Headers set on every response of this gateway (the dashboard's CSP and security headers). */
  responseHeaders?: Record<string, string>;
  /** Runs before routing; a Response ends the request (the dashboard's CSRF check). */
  guardRequest?: (
    request: Request,
    headers: Record<string, string | number>,
  ) => Promise<Response | undefined>;
  /** More metric registries this gateway's /metrics shows (the inference runtime's, the gRPC server's). */
  metrics?: RegistrySource;
}
