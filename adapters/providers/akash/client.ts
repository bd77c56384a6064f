// Akash's transport: the Console API's managed-wallet deployment routes
// (https://console-api.akash.network), header `x-api-key`, bodies and answers wrapped in `{data}`.
import { type KeyedCall, keyedJsonApi } from "../json-api.ts";
import type { ProviderAccess } from "../provider.ts";

export const defaultAkashBaseUrl = "https://console-api.akash.network";

export interface AkashPrice {
  denom: string;
  /** Per block, in the denom's smallest unit (a decimal string). */
  amount: string;
}

export interface AkashBidId {
  owner: string;
  dseq: string;
  gseq: number;
  oseq: number;
  provider: string;
}

export interface AkashBid {
  bid: { id?: AkashBidId; bid_id?: AkashBidId; state: string; price: AkashPrice };
}

export interface AkashServiceStatus {
  uris?: string[];
  ready_replicas?: number;
  available?: number;
  total?: number;
}

export interface AkashLease {
  id: AkashBidId;
  state: string;
  price: AkashPrice;
  status?: { services?: Record<string, AkashServiceStatus> } | null;
}

export interface AkashDeployment {
  deployment: { id: { owner: string; dseq: string }; state: "active" | "closed" };
  leases: AkashLease[];
}

/** An answer of the Console API other than 2xx (`status` 404: no such deployment). */
export { ProviderApiError as AkashError } from "../json-api.ts";

export class AkashClient {
  private readonly call: KeyedCall;

  constructor(access: ProviderAccess) {
    this.call = keyedJsonApi({
      provider: "akash",
      access,
      defaultBaseUrl: defaultAkashBaseUrl,
      authorize: (apiKey) => ({ "x-api-key": apiKey }),
    });
  }

  private async request<T>(method: string, path: string, data?: unknown): Promise<T> {
    // The Console API wraps every answer in `data`.
    const answer = await this.call<{ data?: T } | undefined>(method, path, data);
    return answer?.data as T;
  }

  createDeployment = (sdl: string, deposit: number) =>
    this.request<{ dseq: string; manifest: string }>("POST", "/v1/deployments", { data: { sdl, deposit } });
  getDeployment = (dseq: string) => this.request<AkashDeployment>("GET", `/v1/deployments/${dseq}`);
  bids = (dseq: string) => this.request<AkashBid[]>("GET", `/v1/bids?dseq=${encodeURIComponent(dseq)}`);
  createLease = (manifest: string, bid: AkashBidId) =>
    this.request<unknown>("POST", "/v1/leases", {
      manifest,
      leases: [{ dseq: bid.dseq, gseq: bid.gseq, oseq: bid.oseq, provider: bid.provider }],
    });
  close = (dseq: string) => this.request<unknown>("DELETE", `/v1/deployments/${dseq}`);
}
