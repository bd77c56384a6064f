// gRPC server reflection, v1 and v1alpha: grpcurl, Postman and evans ask it for the schema, so
// nobody needs our .proto files to call us. Descriptors come from the generated code's embedded
// file descriptors, so they are exactly what the server serves.
import { createRegistry, type DescFile, type DescService, type Registry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import { ServerReflection as ServerReflectionV1 } from "#proto/gen/grpc/reflection/v1/reflection_pb.ts";
import { ServerReflection as ServerReflectionV1alpha } from "#proto/gen/grpc/reflection/v1alpha/reflection_pb.ts";

export { ServerReflectionV1, ServerReflectionV1alpha };

/** A request's message_request oneof; v1 and v1alpha spell it the same way. */
export type ReflectionQuestion =
  | { case: "fileByFilename"; value: string }
  | { case: "fileContainingSymbol"; value: string }
  | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
  | { case: "allExtensionNumbersOfType"; value: string }
  | { case: "listServices"; value: string }
  | { case: undefined; value?: undefined };

/** A response's message_response oneof, for either version. */
export type ReflectionAnswer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: Array<{ name: string }> } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

export function createReflector(
  services: readonly DescService[],
): (question: ReflectionQuestion) => ReflectionAnswer {
  const files = filesWithDependencies(services.map((service) => service.file));
  const filesByPath = new Map(files.map((file) => [file.proto.name, file]));
  const registry = createRegistry(...files);
  const serviceNames = [...new Set(services.map((service) => service.typeName))].sort();
  const serializedFiles = new Map<DescFile, Uint8Array>();

  const notFound = (what: string): ReflectionAnswer => ({
    case: "errorResponse",
    value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
  });
  // The file first, then everything it imports, so a client can build the whole schema.
  const fileAnswer = (file: DescFile): ReflectionAnswer => ({
    case: "fileDescriptorResponse",
    value: {
      fileDescriptorProto: filesWithDependencies([file]).map((dependency) => {
        let bytes = serializedFiles.get(dependency);
        if (!bytes) {
          bytes = toBinary(FileDescriptorProtoSchema, dependency.proto);
          serializedFiles.set(dependency, bytes);
        }
        return bytes;
      }),
    },
  });

  return (question) => {
    switch (question.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: serviceNames.map((name) => ({ name })) } };
      case "fileByFilename": {
        const file = filesByPath.get(question.value);
        return file ? fileAnswer(file) : notFound(`file "${question.value}"`);
      }
      case "fileContainingSymbol": {
        const file = fileDeclaring(registry, question.value);
        return file ? fileAnswer(file) : notFound(`symbol "${question.value}"`);
      }
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = question.value;
        const extendee = registry.getMessage(containingType);
        const extension = extendee && registry.getExtensionFor(extendee, extensionNumber);
        return extension
          ? fileAnswer(extension.file)
          : notFound(`extension ${containingType}(${extensionNumber})`);
      }
      case "allExtensionNumbersOfType": {
        if (!registry.getMessage(question.value)) return notFound(`type "${question.value}"`);
        const extensionNumber: number[] = [];
        for (const desc of registry) {
          if (desc.kind === "extension" && desc.extendee.typeName === question.value)
            extensionNumber.push(desc.number);
        }
        return {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: question.value, extensionNumber },
        };
      }
      default:
        return {
          case: "errorResponse",
          value: { errorCode: Code.InvalidArgument, errorMessage: "the request asks nothing" },
        };
    }
  };
}

/** Serves both versions over the same descriptors: older grpcurl builds still ask v1alpha. */
export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const answer = createReflector(services);
  // Each request answered in turn, echoed back with its host as the protocol asks.
  async function* serverReflectionInfo<R extends { host: string; messageRequest: ReflectionQuestion }>(
    requests: AsyncIterable<R>,
  ) {
    for await (const request of requests) {
      yield {
        validHost: request.host,
        originalRequest: request,
        messageResponse: answer(request.messageRequest),
      };
    }
  }
  router.service(ServerReflectionV1, { serverReflectionInfo });
  router.service(ServerReflectionV1alpha, { serverReflectionInfo });
}

/** The given files and all they import, transitively, each once, in first-seen order. */
function filesWithDependencies(roots: readonly DescFile[]): DescFile[] {
  const seen = new Set<DescFile>();
  const visit = (file: DescFile) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const dependency of file.dependencies) visit(dependency);
  };
  for (const root of roots) visit(root);
  return [...seen];
}

/**
 * The file declaring a symbol: a service, message, enum or extension by its full name, or a
 * method, field, oneof or nested enum value by its parent's full name and its own.
 */
function fileDeclaring(registry: Registry, symbol: string): DescFile | undefined {
  const declared = registry.get(symbol);
  if (declared) return declared.file;
  const cut = symbol.lastIndexOf(".");
  const parent = cut > 0 ? registry.get(symbol.slice(0, cut)) : undefined;
  const member = symbol.slice(cut + 1);
  switch (parent?.kind) {
    case "service":
      return parent.methods.some((method) => method.name === member) ? parent.file : undefined;
    case "message": {
      const declares =
        parent.fields.some((field) => field.name === member) ||
        parent.oneofs.some((oneof) => oneof.name === member) ||
        parent.nestedEnums.some((nested) => nested.values.some((value) => value.name === member));
      return declares ? parent.file : undefined;
    }
    default:
      return undefined;
  }
}
