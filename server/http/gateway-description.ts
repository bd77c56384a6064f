// What a gateway says of itself, next to its routes (routes/<gateway>/_gateway.ts): the platform starts
// every gateway the same way from it, so server/ names no gateway and imports nothing of routes/.
import type { Registry } from "prom-client";
import type { PlatformContext } from "#server/platform-context.ts";
import type { ServiceName } from "../config.ts";
import type { Listener } from "../listener.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import type { LoadedRoute } from "./loader.ts";

/** The options a gateway may set beyond those every gateway gets from its description and the platform. */
export type GatewayExtras = Partial<
  Omit<
    GatewayOptions,
    "name" | "app" | "routes" | "sockets" | "title" | "description" | "readinessChecks" | "metrics"
  >
>;

export interface GatewayDescription {
  /** Its name in SERVICES, its port in the config and its folder under routes/. */
  name: ServiceName;
  /** The variable that sets its port: a port already taken is an error that names it. */
  portVariable: string;
  title: string;
  description: string;
  /** Error style, credentials, problem rendering, security headers (the dashboard's, SCIM's problems). */
  extras?: (app: PlatformContext) => GatewayExtras;
  /** Which of the routes every gateway shares (routes/_common) it serves; all unless it says. */
  sharedRoutes?: (route: LoadedRoute) => boolean;
  /** Metric registries of its own on its /metrics (the inference runtime's, the replica gauges). */
  registries?: (app: PlatformContext) => Registry[];
  /** What runs beside it and starts once it is bound (orchestration: the gRPC server, the reconciler). */
  companions?: (app: PlatformContext) => Companions;
}

export interface Companions {
  /** Their metric registries, shown on the gateway's /metrics. */
  registries: Registry[];
  /** Starts them; `gatewayPort` is the port the gateway got. Listeners they open are returned. */
  start(gatewayPort: number): Promise<Listener[]>;
  /** Stops what is not a listener; called before any listener stops. */
  stop(): Promise<void>;
}
