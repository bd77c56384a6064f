// Every gateway, in the order the platform starts them (the top-level main.ts hands them to
// server/start/platform.ts): each is described in its own folder, next to its routes.
import type { Registry } from "prom-client";
import type { ServiceName } from "#server/config.ts";
import type { GatewayDescription } from "#server/http/gateway-description.ts";
import type { GatewayOptions } from "#server/http/gateway-options.ts";
import { buildHttpGateway as buildFrom } from "#server/http/listen.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { dashboardGateway } from "./dashboard/_gateway.ts";
import { filtrationGateway } from "./filtration/_gateway.ts";
import { inferenceGateway } from "./inference/_gateway.ts";
import { orchestrationGateway } from "./orchestration/_gateway.ts";

export const gateways: readonly GatewayDescription[] = [
  filtrationGateway,
  orchestrationGateway,
  inferenceGateway,
  dashboardGateway,
];

export function gatewayNamed(name: ServiceName): GatewayDescription {
  const gateway = gateways.find((g) => g.name === name);
  if (!gateway) throw new Error(`no gateway is named ${name}`);
  return gateway;
}

/** One gateway's app by its name, without its companions (tests, benches). */
export const buildHttpGateway = (
  app: PlatformContext,
  name: ServiceName,
  readinessChecks: GatewayOptions["readinessChecks"] = {},
  registries: readonly Registry[] = [],
) => buildFrom(app, gatewayNamed(name), readinessChecks, registries);
