import { t } from "elysia";
import { AppError } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { queryAuditLogs } from "#services/audit/query.ts";
import { pageInfo } from "../_shared/page.ts";
import { AuditPage } from "../logs/_view.tsx";

export const GET = route({
  access: "audit:read",
  summary: "The audit log (administrators), filtered by action, actor, outcome and date",
  html: true,
  query: t.Object({
    action: t.Optional(t.String({ maxLength: 128 })),
    actor: t.Optional(t.String({ maxLength: 254 })),
    outcome: t.Optional(t.Union([t.Literal(""), t.Literal("success"), t.Literal("failure")])),
    from: t.Optional(t.String({ maxLength: 10 })),
    cursor: t.Optional(t.String({ maxLength: 512 })),
  }),
  handler: async ({ ctx, request, query, set }) => {
    const filters = {
      action: query.action?.trim() || undefined,
      actor: query.actor?.trim() || undefined,
      outcome: query.outcome || undefined,
      from: query.from || undefined,
    };
    const page = await pageInfo(ctx, request);
    try {
      const found = await queryAuditLogs(ctx, {
        ...filters,
        from: filters.from ? `${filters.from}T00:00:00.000Z` : undefined,
        cursor: query.cursor,
        limit: 50,
      });
      return <AuditPage page={page} items={found.items} nextCursor={found.next_cursor} filters={filters} />;
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "validation_error") throw error;
      set.status = 422;
      return <AuditPage page={page} items={[]} nextCursor={null} filters={filters} error={error.message} />;
    }
  },
});
