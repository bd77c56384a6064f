// OpenTelemetry tracing, on only when an OTLP endpoint is configured by the standard variables:
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces),
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG,
// OTEL_EXPORTER_OTLP_HEADERS (read by the exporter). Spans go out as OTLP/HTTP JSON in batches.
// The SDK and its exporter (server/tracing-sdk.ts) are imported only when tracing is on: with tracing
// off their ~300 modules only cost memory and start time.
import type { Tracer } from "@opentelemetry/api";

export interface Tracing {
  tracer: Tracer;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and answers go on spans. */
  captureContent: boolean;
  /** Sends what is queued now. */
  flush(): Promise<void>;
  /** Sends what is still queued, then stops. */
  shutdown(): Promise<void>;
}

export interface TracingSettings {
  /** Full URL of the OTLP/HTTP traces endpoint. */
  url: string;
  serviceName?: string | undefined;
  sampler?: string | undefined;
  samplerArg?: string | undefined;
  captureContent?: boolean;
  /** Milliseconds between batches (the SDK's default is 5000). */
  exportDelayMs?: number;
}

type Env = Record<string, string | undefined>;

/** The settings the OTEL_* variables give, or undefined when no endpoint is set (tracing off). */
export function tracingSettingsFromEnv(env: Env = process.env): TracingSettings | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = traces || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined);
  if (!url || env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none") return undefined;
  return {
    url,
    serviceName: env.OTEL_SERVICE_NAME,
    sampler: env.OTEL_TRACES_SAMPLER,
    samplerArg: env.OTEL_TRACES_SAMPLER_ARG,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT === "true",
  };
}
