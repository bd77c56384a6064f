// SkyPilot's transport: the API server's REST API (sky/server/server.py). Every operation is
// asynchronous: the POST answers with a request id (header X-Skypilot-Request-ID, older servers
// X-Request-ID); GET /api/status?request_ids=ID tells where it is without waiting, GET
// /api/get?request_id=ID waits for it and gives its return value (a JSON string).
import { propertyOf } from "#core/error-chain.ts";
import type { ProviderAccess } from "../provider.ts";

export type RequestStatus = "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export interface RequestPayload {
  request_id: string;
  name: string;
  status: RequestStatus;
  /** JSON text of the result. */
  return_value?: string | null;
  /** The failure: a serialized exception ({type, message}) or text. */
  error?: unknown;
}

export interface ClusterRecord {
  name: string;
  status: "INIT" | "UP" | "STOPPED";
  launched_at?: number;
}

export interface CostRecord {
  name: string;
  /** Dollars so far. */
  total_cost: number;
  /** Seconds it has been up. */
  duration: number;
}

export class SkyPilotError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The reason of a failed request, from its serialized exception. */
export function failureOf(payload: RequestPayload): string {
  const e = payload.error;
  if (typeof e === "string") {
    try {
      return failureOf({ ...payload, error: JSON.parse(e) });
    } catch {
      return e;
    }
  }
  if (e && typeof e === "object") {
    const parts = [propertyOf(e, "type"), propertyOf(e, "message")];
    return parts.filter(Boolean).join(": ") || JSON.stringify(e);
  }
  return `request ${payload.name} ${payload.status}`;
}

export class SkyPilotClient {
  private readonly baseUrl: string;
  private readonly token: string | undefined;

  constructor(access: ProviderAccess) {
    const base = access.settings.base_url;
    if (typeof base !== "string" || base === "")
      throw new Error("the skypilot provider configuration has no settings.base_url (the API server's URL)");
    this.baseUrl = base.replace(/\/+$/, "");
    this.token = access.credentials?.token;
  }

  private async fetch(method: string, path: string, body?: unknown): Promise<Response> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10 * 60_000),
    });
    if (!res.ok && res.status !== 500) {
      const text = await res.text();
      let detail = text.slice(0, 300);
      try {
        const parsed: unknown = JSON.parse(text);
        detail = String(propertyOf(parsed, "detail") ?? detail);
      } catch {}
      throw new SkyPilotError(res.status, `skypilot ${method} ${path}: ${res.status} ${detail}`);
    }
    return res;
  }

  /** Submits an operation; its request id. */
  async submit(path: string, body: unknown): Promise<string> {
    const res = await this.fetch("POST", path, body);
    await res.body?.cancel();
    const id = res.headers.get("x-skypilot-request-id") ?? res.headers.get("x-request-id");
    if (!id) throw new SkyPilotError(res.status, `skypilot POST ${path}: no request id in the answer`);
    return id;
  }

  /** Where a request is, without waiting; undefined when the server does not know it. */
  async peek(requestId: string): Promise<RequestPayload | undefined> {
    const res = await this.fetch(
      "GET",
      `/api/status?request_ids=${encodeURIComponent(requestId)}&all_status=true`,
    );
    const list = (await res.json()) as RequestPayload[];
    return list.find((r) => r.request_id === requestId);
  }

  /** Waits for a request and gives its return value; throws with its failure. */
  async result<T>(requestId: string): Promise<T> {
    const res = await this.fetch("GET", `/api/get?request_id=${encodeURIComponent(requestId)}`);
    const payload = (await res.json()) as RequestPayload & { detail?: unknown };
    if (res.status === 500 || payload.status === "FAILED" || payload.status === "CANCELLED") {
      throw new SkyPilotError(500, payload.detail ? String(payload.detail) : failureOf(payload));
    }
    return (payload.return_value ? JSON.parse(payload.return_value) : null) as T;
  }

  call = async <T>(path: string, body: unknown) => this.result<T>(await this.submit(path, body));

  /** The request's output (for a launch: provisioning, setup and the run's first lines). */
  async stream(requestId: string): Promise<string> {
    const res = await this.fetch(
      "GET",
      `/api/stream?request_id=${encodeURIComponent(requestId)}&follow=false`,
    );
    return res.text();
  }

  launch = (task: string, clusterName: string) =>
    this.submit("/launch", { task, cluster_name: clusterName, retry_until_up: true, down: false });
  status = (clusterNames: string[] | null) =>
    this.call<ClusterRecord[]>("/status", { cluster_names: clusterNames });
  endpoints = (cluster: string, port: number) =>
    this.call<Record<string, string>>("/endpoints", { cluster, port });
  costReport = () => this.call<CostRecord[]>("/cost_report", { days: 1 });
  down = (clusterName: string) => this.call<unknown>("/down", { cluster_name: clusterName });
}
