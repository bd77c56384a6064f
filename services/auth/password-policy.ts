// Whether an organization still lets its members sign in with a password. An organization that signs
// in through its identity provider may turn passwords off; its break-glass administrators (named in
// its SSO configuration) keep theirs, so it can be reached when the provider is down or misconfigured.
import { eq } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { ssoConfigs } from "#db/schema/index.ts";

export async function passwordSignInAllowed(db: Executor, orgId: string, email: string): Promise<boolean> {
  const [row] = await db
    .select({ off: ssoConfigs.passwordLoginDisabled, breakGlass: ssoConfigs.breakGlassEmails })
    .from(ssoConfigs)
    .where(eq(ssoConfigs.orgId, orgId))
    .limit(1);
  return !row?.off || row.breakGlass.includes(email);
}
