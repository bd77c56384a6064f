// Akash's transport: the Console API's managed-wallet deployment routes
// (https://console-api.akash.network), header `x-api-key`, bodies and answers wrapped in `{data}`.
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

export class AkashError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class AkashClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(access: ProviderAccess) {
    const key = access.credentials?.api_key;
    if (!key) throw new Error("the akash provider configuration has no api_key credential");
    this.apiKey = key;
    const base =
      typeof access.settings.base_url === "string" ? access.settings.base_url : defaultAkashBaseUrl;
    this.baseUrl = base.replace(/\/+$/, "");
  }

  private async request<T>(method: string, path: string, data?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        "x-api-key": this.apiKey,
        ...(data === undefined ? {} : { "content-type": "application/json" }),
      },
      body: data === undefined ? undefined : JSON.stringify(data),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) {
      let message = text.slice(0, 300);
      try {
        const parsed = JSON.parse(text) as { message?: string; error?: string };
        message = parsed.message ?? parsed.error ?? message;
      } catch {}
      throw new AkashError(res.status, `akash ${method} ${path}: ${res.status} ${message}`);
    }
    const parsed = (text ? JSON.parse(text) : {}) as { data?: T };
    return parsed.data as T;
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
