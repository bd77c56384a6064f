import { t } from "elysia";

export const SessionUser = t.Object({
  id: t.String(),
  email: t.String(),
  role: t.String(),
  org_id: t.String({ description: "The active organization: the owner_id of its pools" }),
});

export const Session = t.Object({
  access_token: t.String({ description: "JWT, 15 minutes" }),
  refresh_token: t.String({ description: "JWT, 7 days; rotated on use" }),
  token_type: t.Literal("bearer"),
  expires_in: t.Integer({ description: "Seconds until the access token expires" }),
  user: SessionUser,
});
