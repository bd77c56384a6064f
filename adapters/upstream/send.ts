// Sends one request to the replicas of a deployment: the least busy first, one retry on another
// replica when the connection fails before anything was sent, a connect and a first-byte deadline,
// and the client's disconnect passed on so the model stops generating. Each outcome goes to the
// balancer's passive health: no connection, no first byte in time or a 5xx is the replica failing;
// any other answer (a 4xx or a 429 included) shows it alive.
import { AppError } from "#core/errors.ts";
import type { InFlightBalancer } from "./balancer.ts";
import { ConnectFailure, ensureReachable, markReached } from "./connect-probe.ts";
import type { Affinity, AffinityOutcome } from "./prefix-table.ts";
import type { HostedTarget } from "./wire/hosted.ts";
import { baseUrlOf } from "./wire/index.ts";
import { WireRefusal } from "./wire/openai-side.ts";
import type { OpenAiPath, WireAdapter } from "./wire/wire.ts";

/** A hosted upstream: the request goes through its wire adapter instead of to `<endpoint><path>`. */
export interface WireRoute {
  adapter: WireAdapter;
  /** The upstream's model and the credential; the endpoint is the replica chosen. */
  target: HostedTarget;
  stream: boolean;
}

export interface UpstreamRequest {
  endpoints: readonly string[];
  /** Path appended to the endpoint, e.g. /v1/chat/completions. */
  path: string;
  body: string;
  signal: AbortSignal;
  connectTimeoutMs: number;
  /** Until the response headers arrive. */
  firstByteTimeoutMs: number;
  /** More request headers (the W3C `traceparent` of the caller's trace). */
  headers?: Record<string, string> | undefined;
  /** The prompt's block hashes: the replica holding its longest prefix is preferred (balancer.ts). */
  affinity?: Affinity | undefined;
  /** Set for a hosted deployment (adapters/upstream/wire/). */
  wire?: WireRoute | undefined;
}

export interface UpstreamResponse {
  response: Response;
  endpoint: string;
  /** What prefix routing did, when the request carried an affinity and there was a choice. */
  routing?: AffinityOutcome | undefined;
  /** Call when the response is consumed (or abandoned): frees the replica's in-flight slot. */
  release(): void;
}

const timedOut = Symbol("first-byte timeout");

export async function sendUpstream(
  balancer: InFlightBalancer,
  request: UpstreamRequest,
): Promise<UpstreamResponse> {
  const tried = new Set<string>();
  for (let attempt = 0; attempt < 2; attempt++) {
    const chosen = balancer.choose(request.endpoints, tried, request.affinity);
    const choice = chosen instanceof Promise ? await chosen : chosen;
    if (!choice) break;
    const endpoint = choice.endpoint;
    tried.add(endpoint);
    const release = balancer.acquire(endpoint);
    const controller = new AbortController();
    const onClientAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener("abort", onClientAbort, { once: true });
    const timer = setTimeout(() => controller.abort(timedOut), request.firstByteTimeoutMs);
    try {
      await ensureReachable(balancer.reached, endpoint, request.connectTimeoutMs);
      const hosted = request.wire && wireCall(request.wire, endpoint, request.path, request.body);
      if (hosted instanceof WireRefusal) {
        // A request the upstream's API cannot express (adapters/upstream/wire/): its 400, nothing sent.
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onClientAbort);
        release();
        return {
          response: Response.json(hosted.body, { status: hosted.status }),
          endpoint,
          release: () => {},
        };
      }
      if (request.wire && !hosted) {
        // A path only the platform's own engines serve (/tokenize): the caller's fallback takes over.
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onClientAbort);
        release();
        return { response: notServed(), endpoint, release: () => {} };
      }
      const sent = await fetch(hosted?.url ?? `${endpoint.replace(/\/$/, "")}${request.path}`, {
        method: "POST",
        headers: {
          ...request.headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...hosted?.headers,
        },
        body: hosted?.body ?? request.body,
        signal: controller.signal,
      });
      clearTimeout(timer);
      const response = hosted ? await hosted.answer(sent) : sent;
      markReached(balancer.reached, endpoint);
      balancer.report(endpoint, response.status < 500);
      return {
        response,
        endpoint,
        routing: choice.routing,
        release: () => {
          request.signal.removeEventListener("abort", onClientAbort);
          release();
        },
      };
    } catch (error) {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", onClientAbort);
      release();
      if (request.signal.aborted) throw new AppError("upstream_error", "the client went away");
      balancer.report(endpoint, false);
      if (controller.signal.reason === timedOut) {
        throw new AppError(
          "upstream_timeout",
          `the model did not answer within ${request.firstByteTimeoutMs} ms`,
        );
      }
      const beforeSending = error instanceof ConnectFailure || isConnectionRefused(error);
      if (beforeSending && attempt === 0) continue;
      throw new AppError("upstream_error", "the model's server could not be reached");
    }
  }
  throw new AppError("upstream_error", "no replica of the deployment could be reached");
}

const openAiPaths: readonly string[] = ["/v1/chat/completions", "/v1/embeddings"];
const isOpenAiPath = (path: string): path is OpenAiPath => openAiPaths.includes(path);

/** The wire adapter's request for one replica, and how its answer becomes OpenAI's; undefined: no such path. */
function wireCall(wire: WireRoute, endpoint: string, path: string, body: string) {
  // Replica endpoints are OpenAI base URLs (…/v1) and paths are relative to them.
  const openAiPath = `/v1${path}`;
  if (!isOpenAiPath(openAiPath)) return undefined;
  const target = { ...wire.target, endpoint: baseUrlOf(endpoint) };
  let request: ReturnType<WireAdapter["request"]>;
  try {
    request = wire.adapter.request(target, openAiPath, body, wire.stream);
  } catch (error) {
    if (error instanceof WireRefusal) return error;
    throw error;
  }
  return {
    ...request,
    answer: (upstream: Response) => wire.adapter.response(upstream, openAiPath, wire.stream, target),
  };
}

function notServed(): Response {
  return Response.json(
    {
      error: {
        message: "the hosted upstream has no such endpoint",
        type: "invalid_request_error",
        code: null,
      },
    },
    { status: 404 },
  );
}

function isConnectionRefused(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? "";
  return ["ConnectionRefused", "ECONNREFUSED", "FailedToOpenSocket", "ConnectionClosed"].includes(code);
}
