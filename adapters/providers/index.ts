// The providers of this installation, keyed by the ProviderId union.
import type { ProviderId } from "#core/domain.ts";
import { engines } from "../engines/index.ts";
import { createAkashProvider } from "./akash/index.ts";
import { createExternalProvider } from "./external/index.ts";
import { createKubernetesProvider } from "./kubernetes/index.ts";
import { createLocalProvider } from "./local/index.ts";
import { createNosanaProvider } from "./nosana/index.ts";
import type { ComputeProvider } from "./provider.ts";
import { type AccountDirectory, noAccounts } from "./remote-accounts.ts";
import { createSkyPilotProvider } from "./skypilot/index.ts";

export type ProviderRegistry = { readonly [K in ProviderId]?: ComputeProvider & { id: K } };

export function createProviders(options: { dataDir: string; accounts?: AccountDirectory }): ProviderRegistry {
  const accounts = options.accounts ?? noAccounts;
  return {
    kubernetes: { ...createKubernetesProvider({ engines, accounts }), id: "kubernetes" },
    akash: { ...createAkashProvider({ engines, accounts }), id: "akash" },
    skypilot: { ...createSkyPilotProvider({ engines, accounts }), id: "skypilot" },
    nosana: { ...createNosanaProvider({ engines, accounts }), id: "nosana" },
    local: { ...createLocalProvider({ dataDir: options.dataDir, engines }), id: "local" },
    external: { ...createExternalProvider(), id: "external" },
  };
}
