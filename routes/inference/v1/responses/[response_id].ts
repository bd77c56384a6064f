// GET and DELETE /v1/responses/{response_id}: a stored response of the API key's organization;
// another organization's id is 404, as one that never existed.
import { t } from "elysia";
import { DeletedResponse, ResponseObject } from "#contracts/openai/responses.ts";
import { bearerOf } from "#server/http/gateway.ts";
import { route } from "#server/http/route.ts";
import { deleteResponse, getResponse } from "#services/inference/responses/responses.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleErrors } from "../_schemas/errors.ts";

const params = t.Object({ response_id: t.String({ minLength: 1, maxLength: 256 }) });

export const GET = route({
  access: "public",
  apiKey: true,
  summary: "A stored response (Authorization: Bearer <API key>)",
  params,
  response: ResponseObject,
  errors: lifecycleErrors,
  handler: ({ ctx, params, request }) =>
    getResponse(inferenceRuntimeOf(ctx), bearerOf(request), params.response_id),
});

export const DELETE = route({
  access: "public",
  apiKey: true,
  summary: "Delete a stored response (Authorization: Bearer <API key>)",
  params,
  response: DeletedResponse,
  errors: lifecycleErrors,
  handler: ({ ctx, params, request }) =>
    deleteResponse(inferenceRuntimeOf(ctx), bearerOf(request), params.response_id),
});
