// The OpenTelemetry SDK behind server/telemetry.ts's settings: spans go out as OTLP/HTTP JSON in
// batches. Imported by server/start/platform.ts only when tracing is on. The provider is not registered
// globally: the platform hands its tracer to what it starts, so tests can run several platforms (each
// with its own exporter) in one process.
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { Tracing, TracingSettings } from "./telemetry.ts";

export function startTracing(settings: TracingSettings): Tracing {
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        [ATTR_SERVICE_NAME]: "llm-serving-platform",
        [ATTR_SERVICE_VERSION]: "0.1.0",
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(
      settings.serviceName ? resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }) : null,
    );
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler, settings.samplerArg),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.url }),
        scheduledDelayMillis: settings.exportDelayMs ?? 5000,
      }),
    ],
  });
  return {
    tracer: provider.getTracer("llm-serving-platform", "0.1.0"),
    captureContent: settings.captureContent ?? false,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/** OTEL_TRACES_SAMPLER as the specification lists them; the default is parentbased_always_on. */
export function samplerOf(name = "parentbased_always_on", arg?: string): Sampler {
  const ratio = arg !== undefined && arg.trim() !== "" && Number.isFinite(Number(arg)) ? Number(arg) : 1;
  switch (name.trim()) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return new TraceIdRatioBasedSampler(ratio);
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
