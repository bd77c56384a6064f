import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { providerResources } from "#services/orchestration/providers.ts";

export const GET = route({
  access: "pools:read",
  summary: "What a provider offers (local: this machine's cores, memory and GPUs)",
  query: t.Object({
    provider: t.Optional(
      t.String({
        description: "Default: nosana when the organization configured its credentials, else local",
      }),
    ),
  }),
  response: t.Object({
    provider: t.String(),
    cpu: t.Nullable(t.Object({ cores: t.Integer(), model: t.Nullable(t.String()) })),
    memory: t.Nullable(t.Object({ total_mib: t.Integer(), free_mib: t.Integer() })),
    gpus: t.Array(
      t.Object({
        name: t.String(),
        memory_mib: t.Nullable(t.Integer()),
        count: t.Integer(),
        price_per_hour: t.Nullable(t.Number()),
      }),
    ),
    notes: t.Array(t.String()),
  }),
  handler: ({ ctx, query }) => providerResources(ctx, query.provider),
});
