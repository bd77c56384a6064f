import { t } from "elysia";
import { PolicyTypeParams } from "#core/policies.ts";
import { attempt } from "#routes/dashboard/_shared/form.ts";
import { pageInfo } from "#routes/dashboard/_shared/page.ts";
import { redirect } from "#routes/dashboard/_shared/session.ts";
import { route } from "#server/http/route.ts";
import { setPolicy } from "#services/policies/policies.ts";
import { configFromForm, renderPolicies } from "./_page.tsx";

export const POST = route({
  access: "policies:write",
  summary: "Set one policy of the deployment from its form (as PUT /management/config/{policy_type})",
  html: true,
  params: t.Composite([t.Object({ id: t.String() }), PolicyTypeParams]),
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, request, params, body, set }) => {
    const type = params.policy_type;
    const parsed = configFromForm(type, body);
    const saved = parsed.ok
      ? await attempt(() => setPolicy(ctx, type, { deployment_id: params.id, config: parsed.value }))
      : parsed;
    if (!saved.ok) {
      set.status = 422;
      // An item of a list (`config.fallbacks.1`) is shown at its list's field, first problem first.
      const errors: Record<string, string> = {};
      for (const [field, message] of Object.entries(saved.errors)) {
        const name = field
          .replace(/^config\./, "")
          .replace(/\.\d+$/, "")
          .replaceAll(".", "_");
        errors[name] ??= message;
      }
      return renderPolicies(ctx, await pageInfo(ctx, request), params.id, {
        type,
        form: { errors, values: body },
      });
    }
    return redirect(`/deployments/${params.id}/policies?saved=${type}#policy-${type}`);
  },
});
