// Nosana's transport: the deployment manager API behind the dashboard
// (https://dashboard.k8s.prd.nos.ci/api), `Authorization: Bearer <api key>`.
import { type KeyedCall, keyedJsonApi } from "../json-api.ts";
import type { ProviderAccess } from "../provider.ts";

export const defaultNosanaBaseUrl = "https://dashboard.k8s.prd.nos.ci/api";

export type NosanaDeploymentStatus =
  | "DRAFT"
  | "STARTING"
  | "RUNNING"
  | "STOPPING"
  | "STOPPED"
  | "ERROR"
  | "INSUFFICIENT_FUNDS"
  | "ARCHIVED";

export interface NosanaMarket {
  address: string;
  slug: string;
  gpu_types: string[];
  /** What a job on this market costs per hour, in US dollars. */
  usd_reward_per_hour: number;
}

export interface NosanaEndpoint {
  opId: string;
  port: number;
  url: string;
  online: boolean;
}

export interface NosanaDeployment {
  id: string;
  name: string;
  status: NosanaDeploymentStatus;
  market: string;
  replicas: number;
  endpoints: NosanaEndpoint[];
}

export interface NosanaEvent {
  category?: string;
  type: string;
  message: string;
  created_at: string;
}

export interface JobDefinition {
  version: "0.1";
  type: "container";
  meta: { trigger: "api" };
  ops: {
    type: "container/run";
    id: string;
    args: {
      image: string;
      entrypoint?: string[];
      cmd: string[];
      gpu: boolean;
      expose: number;
      env: Record<string, string>;
    };
  }[];
}

/** An answer of Nosana's API other than 2xx (`status` 404: no such deployment). */
export { ProviderApiError as NosanaError } from "../json-api.ts";

export class NosanaClient {
  private readonly request: KeyedCall;

  constructor(access: ProviderAccess) {
    this.request = keyedJsonApi({
      provider: "nosana",
      access,
      defaultBaseUrl: defaultNosanaBaseUrl,
      authorize: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    });
  }

  markets = () => this.request<NosanaMarket[]>("GET", "/markets/");
  listDeployments = () => this.request<NosanaDeployment[]>("GET", "/deployments");
  getDeployment = (id: string) => this.request<NosanaDeployment>("GET", `/deployments/${id}`);
  events = (id: string) => this.request<NosanaEvent[]>("GET", `/deployments/${id}/events`);
  start = (id: string) => this.request<unknown>("POST", `/deployments/${id}/start`);
  stop = (id: string) => this.request<unknown>("POST", `/deployments/${id}/stop`);
  remove = (id: string) => this.request<unknown>("DELETE", `/deployments/${id}`);
  createDeployment = (body: {
    name: string;
    market: string;
    replicas: number;
    /** Minutes (the deployment API's unit). */
    timeout: number;
    strategy: "SIMPLE" | "SIMPLE-EXTEND" | "SCHEDULED" | "INFINITE";
    job_definition: JobDefinition;
  }) => this.request<NosanaDeployment>("POST", "/deployments/create", body);
}
