import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { GrpcServer } from "#server/grpc/server.ts";
import { endOf, nextMessage, ORCHESTRATION_SERVICE_NAMES, startTestServer, TestClient } from "./support";

interface ReflectionResponse {
  message_response: string;
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Uint8Array[] };
  error_response?: { error_code: number; error_message: string };
}

const V1 = "grpc.reflection.v1.ServerReflection";
const V1ALPHA = "grpc.reflection.v1alpha.ServerReflection";
const DEPLOYMENTS = "llmplatform.orchestration.v1.ModelDeploymentService";
const ALL_SERVICES = [...ORCHESTRATION_SERVICE_NAMES, "grpc.health.v1.Health", V1, V1ALPHA].sort();

let server: GrpcServer;
let client: TestClient;

beforeAll(async () => {
  server = await startTestServer();
  client = new TestClient(server.port);
});

afterAll(async () => {
  client.close();
  await server.close(1_000);
});

/** Asks one question on a fresh stream and closes it, as grpcurl does. */
async function ask(service: string, request: object): Promise<ReflectionResponse> {
  const stream = client.bidi(service, "ServerReflectionInfo");
  const answer = nextMessage<ReflectionResponse>(stream);
  stream.write(request);
  stream.end();
  const response = await answer;
  await endOf(stream);
  return response;
}

/**
 * Parses the returned descriptors into a registry of the first file, as grpcurl does; building it
 * fails if any import, direct or not, is missing from the answer.
 */
function registryOf(response: ReflectionResponse) {
  const files = (response.file_descriptor_response?.file_descriptor_proto ?? []).map((bytes) =>
    fromBinary(FileDescriptorProtoSchema, bytes),
  );
  const [requested] = files;
  if (!requested) throw new Error("no file descriptor in the answer");
  const registry = createFileRegistry(requested, (name) => files.find((file) => file.name === name));
  return { names: files.map((file) => file.name), registry };
}

describe("server reflection (bidirectional streaming)", () => {
  test("v1 list_services lists the orchestration services, health and reflection", async () => {
    const response = await ask(V1, { list_services: "" });
    expect(response.list_services_response?.service.map((service) => service.name)).toEqual(ALL_SERVICES);
  });

  test("v1alpha answers the same list", async () => {
    const response = await ask(V1ALPHA, { list_services: "*" });
    expect(response.list_services_response?.service.map((service) => service.name)).toEqual(ALL_SERVICES);
  });

  test("file_containing_symbol returns the file and every import, and they parse", async () => {
    const response = await ask(V1, { file_containing_symbol: DEPLOYMENTS });
    const { names, registry } = registryOf(response);
    expect(names[0]).toBe("llmplatform/orchestration/v1/deployments.proto");
    expect(names).toEqual(
      expect.arrayContaining(["google/protobuf/struct.proto", "google/protobuf/timestamp.proto"]),
    );
    const service = registry.getService(DEPLOYMENTS);
    expect(service?.methods.map((method) => method.name)).toEqual([
      "DeployModel",
      "GetDeployment",
      "ListDeployments",
      "StartDeployment",
      "DeleteDeployment",
      "RemoveDeployment",
    ]);
    const deploy = registry.getMessage("llmplatform.orchestration.v1.DeployModelRequest");
    expect(deploy?.fields.find((field) => field.name === "configuration")?.message?.typeName).toBe(
      "google.protobuf.Struct",
    );
  });

  test("file_containing_symbol finds methods, messages and fields too", async () => {
    for (const symbol of [
      `${DEPLOYMENTS}.DeployModel`,
      "llmplatform.orchestration.v1.Pool",
      "llmplatform.orchestration.v1.Pool.node_count",
      "grpc.health.v1.HealthCheckResponse.ServingStatus",
    ]) {
      const response = await ask(V1, { file_containing_symbol: symbol });
      expect(response.message_response).toBe("file_descriptor_response");
    }
  });

  test("file_by_filename returns that file with its imports", async () => {
    const response = await ask(V1, { file_by_filename: "llmplatform/orchestration/v1/pools.proto" });
    const { names, registry } = registryOf(response);
    expect(names).toEqual(["llmplatform/orchestration/v1/pools.proto", "google/protobuf/timestamp.proto"]);
    expect(registry.getService("llmplatform.orchestration.v1.ComputePoolManagerService")).toBeDefined();
  });

  test("an unknown symbol or file gets an error_response with NOT_FOUND, and the stream goes on", async () => {
    const stream = client.bidi(V1, "ServerReflectionInfo");
    stream.write({ file_containing_symbol: "no.such.Symbol" });
    const unknown = await nextMessage<ReflectionResponse>(stream);
    expect(unknown.error_response?.error_code).toBe(5);
    stream.write({ file_by_filename: "no/such/file.proto" });
    expect((await nextMessage<ReflectionResponse>(stream)).error_response?.error_code).toBe(5);
    stream.write({ list_services: "" });
    expect((await nextMessage<ReflectionResponse>(stream)).message_response).toBe("list_services_response");
    stream.end();
    await endOf(stream);
  });

  test("answers requests written before any answer is read, in order", async () => {
    const stream = client.bidi(V1, "ServerReflectionInfo");
    const answers: ReflectionResponse[] = [];
    stream.on("data", (answer: ReflectionResponse) => answers.push(answer));
    const ended = endOf(stream);
    stream.write({ list_services: "" });
    stream.write({ file_containing_symbol: DEPLOYMENTS });
    stream.write({ file_containing_symbol: "no.such.Symbol" });
    stream.end();
    await ended;
    expect(answers.map((answer) => answer.message_response)).toEqual([
      "list_services_response",
      "file_descriptor_response",
      "error_response",
    ]);
  });
});
