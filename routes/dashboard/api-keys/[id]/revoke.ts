import { revokeApiKey } from "#services/api-keys/keys.ts";
import { recordAction } from "../../_shared/notice.ts";

export const POST = recordAction({
  access: "api_keys:write",
  summary: "Revoke an API key (after the page's confirmation)",
  act: revokeApiKey,
  goTo: () => "/api-keys",
  notice: "key-revoked",
});
