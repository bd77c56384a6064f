// Tracing follows the standard OTEL_* variables: off without an endpoint, the traces URL derived as the
// specification says, the sampler named by OTEL_TRACES_SAMPLER.
import { expect, test } from "bun:test";
import { tracingSettingsFromEnv } from "#server/telemetry.ts";
import { samplerOf } from "#server/tracing-sdk.ts";

test("no endpoint, or the SDK disabled: tracing is off", () => {
  expect(tracingSettingsFromEnv({})).toBeUndefined();
  expect(
    tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
  ).toBeUndefined();
  expect(
    tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
  ).toBeUndefined();
});

test("the base endpoint gets /v1/traces; the traces endpoint is used as given", () => {
  expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })?.url).toBe(
    "http://c:4318/v1/traces",
  );
  const both = tracingSettingsFromEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9999/custom",
    OTEL_SERVICE_NAME: "gw",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
  });
  expect(both).toMatchObject({ url: "http://t:9999/custom", serviceName: "gw", captureContent: true });
});

test("OTEL_TRACES_SAMPLER names the sampler, parent-based always-on by default", () => {
  expect(samplerOf().toString()).toContain("ParentBased{root=AlwaysOnSampler");
  expect(samplerOf("always_off").toString()).toBe("AlwaysOffSampler");
  expect(samplerOf("traceidratio", "0.25").toString()).toBe("TraceIdRatioBased{0.25}");
  expect(samplerOf("parentbased_traceidratio", "0.5").toString()).toContain("TraceIdRatioBased{0.5}");
});
