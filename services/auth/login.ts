import { asc, eq } from "drizzle-orm";
import { memberships, users } from "../../db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { burnPasswordCheck, verifyPassword } from "./passwords.ts";
import { issueSession, type Session } from "./session.ts";

export interface LoginInput {
  email: string;
  password: string;
  totp_code?: string | undefined;
}

/** One message for an unknown e-mail and a wrong password, so neither reveals which e-mails exist. */
const badCredentials = () => new AppError("unauthenticated", "invalid email or password");

export async function login(ctx: AppContext, input: LoginInput): Promise<Session> {
  const email = input.email.trim().toLowerCase();
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user) {
    await burnPasswordCheck(input.password);
    throw badCredentials();
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) throw badCredentials();
  // The first organization joined is the one a session starts in; /auth/switch-org changes it.
  const [first] = await ctx.db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(eq(memberships.userId, user.id))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  if (!first) throw badCredentials();
  return ctx.db.transaction((tx) => issueSession(ctx, tx, user, first.orgId));
}
