// ModelRegistryService: the registry services of /deployment/registerModel and friends, over gRPC.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ModelRegistryService } from "#proto/gen/llmplatform/orchestration/v1/models_pb.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { deleteModel, getModel, listModelVersions, registerModel } from "#services/orchestration/models.ts";
import type { ModelView } from "#services/orchestration/views.ts";
import { given, requestContextOf } from "./context.ts";

const modelMessage = (m: ModelView) => ({
  modelName: m.model_name,
  modelVersion: m.model_version,
  backend: m.backend,
  artifactUri: m.artifact_uri ?? "",
  configJson: m.config_json as JsonObject,
  createdAt: timestampFromDate(new Date(m.created_at)),
});

export function modelService(app: PlatformContext): ServiceImpl<typeof ModelRegistryService> {
  return {
    async registerModel(req, call) {
      const model = await registerModel(requestContextOf(app, call), {
        model_name: req.modelName,
        model_version: given(req.modelVersion),
        backend: req.backend,
        artifact_uri: given(req.artifactUri),
        config_json: req.configJson,
      });
      return { model: modelMessage(model) };
    },
    async getModel(req, call) {
      return {
        model: modelMessage(await getModel(requestContextOf(app, call), req.modelName, req.modelVersion)),
      };
    },
    async listModels(req, call) {
      const { models } = await listModelVersions(requestContextOf(app, call), req.modelName);
      return { models: models.map(modelMessage) };
    },
    async deleteModel(req, call) {
      await deleteModel(requestContextOf(app, call), {
        model_name: req.modelName,
        model_version: req.modelVersion,
      });
      return {};
    },
  };
}
