// The set-up most management tests share: a test app's filtration gateway and three callers, the
// default organization's admin and a viewer, and the admin of another organization (the outsider,
// who must see 404 for what is not theirs).
import { defaultOrgId } from "../management/support.ts";
import {
  createOrganization,
  createUser,
  gatewayHandler,
  type Handler,
  loginAsAdmin,
  startTestApp,
  type TestApp,
} from "./app.ts";

export type GatewayName = "inference" | "filtration" | "orchestration" | "dashboard";

/** A test app and one of its gateways' handler. */
export async function startGateway(
  name: GatewayName,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; handle: Handler }> {
  const t = await startTestApp(env);
  return { t, handle: (await gatewayHandler(t.app, name)).handle };
}

/** A test app and the handlers of the gateways named. */
export async function startGateways<N extends GatewayName>(
  names: readonly N[],
  env: Record<string, string> = {},
  parts: Parameters<typeof startTestApp>[1] = {},
): Promise<{ t: TestApp; handlers: Record<N, Handler> }> {
  const t = await startTestApp(env, parts);
  const handlers = {} as Record<N, Handler>;
  for (const name of names) handlers[name] = (await gatewayHandler(t.app, name)).handle;
  return { t, handlers };
}

export interface Callers {
  t: TestApp;
  handle: Handler;
  /** Access tokens. */
  admin: string;
  viewer: string;
  outsider: string;
  orgId: string;
  otherOrgId: string;
}

/**
 * Starts the app with `<tag>-viewer@example.com` in the default organization and
 * `<tag>-outsider@example.com` as the admin of a new organization `<tag>-other`.
 */
export async function startWithCallers(tag: string): Promise<Callers> {
  const { t, handle } = await startGateway("filtration");
  const admin = (await loginAsAdmin(handle)).access_token;
  const viewer = (await createUser(t, handle, `${tag}-viewer@example.com`, "viewer")).access_token;
  const otherOrgId = await createOrganization(t, `${tag}-other`);
  const outsider = (await createUser(t, handle, `${tag}-outsider@example.com`, "admin", otherOrgId))
    .access_token;
  return { t, handle, admin, viewer, outsider, orgId: await defaultOrgId(t.app.db), otherOrgId };
}
