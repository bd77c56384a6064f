import { recordAction } from "../../../../server/dashboard/notice.ts";
import { revokeApiKey } from "../../../../services/api-keys/keys.ts";

export const POST = recordAction({
  access: "api_keys:write",
  summary: "Revoke an API key (after the page's confirmation)",
  act: revokeApiKey,
  goTo: () => "/api-keys",
  notice: "key-revoked",
});
