import { t } from "elysia";

export const TotpCode = t.Object({
  code: t.String({ pattern: "^[0-9]{6}$", description: "The 6 digits your authenticator shows now" }),
});
export const TotpState = t.Object({ totp_enabled: t.Boolean() });
