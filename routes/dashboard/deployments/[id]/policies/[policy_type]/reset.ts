import { t } from "elysia";
import { PolicyTypeParams } from "#core/policies.ts";
import { redirectWithNotice } from "#routes/dashboard/_shared/notice.ts";
import { route } from "#server/http/route.ts";
import { deletePolicy } from "#services/policies/policies.ts";

export const POST = route({
  access: "policies:write",
  summary: "Remove the deployment's own policy of a type: the organization's applies again",
  html: true,
  params: t.Composite([t.Object({ id: t.String() }), PolicyTypeParams]),
  handler: async ({ ctx, params }) => {
    await deletePolicy(ctx, params.policy_type, { deployment_id: params.id });
    return redirectWithNotice(
      `/deployments/${params.id}/policies#policy-${params.policy_type}`,
      "policy-reset",
    );
  },
});
