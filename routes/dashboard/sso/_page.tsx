// The single sign-on page as every route of it renders it: the stored configuration (or the form as
// posted, with its problems), the SCIM tokens, and a SCIM token just made.

import { AppError } from "#core/errors.ts";
import type { RequestContext } from "#services/context.ts";
import { listScimTokens } from "#services/scim/tokens.ts";
import { getSso } from "#services/sso/config.ts";
import type { SsoConfigViewT } from "#services/sso/requests.ts";
import type { FieldErrors, FormValues } from "../_shared/form.ts";
import { pageInfo } from "../_shared/page.ts";
import { redirectUriOf } from "../login/sso/_origin.ts";
import { formValuesOf } from "./_form.ts";
import { SsoPage } from "./_view.tsx";

async function configOrNone(ctx: RequestContext): Promise<SsoConfigViewT | undefined> {
  try {
    return await getSso(ctx);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return undefined;
    throw error;
  }
}

export async function renderSsoPage(
  ctx: RequestContext,
  request: Request,
  extra: { errors?: FieldErrors; values?: FormValues; saved?: boolean; newToken?: string } = {},
) {
  const config = await configOrNone(ctx);
  return (
    <SsoPage
      page={await pageInfo(ctx, request)}
      config={config}
      tokens={(await listScimTokens(ctx)).tokens}
      form={{ errors: extra.errors, values: extra.values ?? formValuesOf(config) }}
      redirectUri={redirectUriOf(request)}
      saved={extra.saved}
      newToken={extra.newToken}
    />
  );
}
