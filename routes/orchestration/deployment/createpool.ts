import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { createPool } from "#services/orchestration/pools.ts";
import { CreatePoolBody } from "#services/orchestration/requests.ts";
import { Pool } from "../_schemas/pool.ts";

export const POST = route({
  access: "pools:write",
  summary: "Create a compute pool (Provisioning, then Active); the node token is returned once",
  body: CreatePoolBody,
  response: t.Composite([
    Pool,
    t.Object({ node_token: t.String({ description: "Nodes send it with heartbeats; shown only here" }) }),
  ]),
  status: 201,
  handler: ({ ctx, body }) => createPool(ctx, body),
});
