import { AppError } from "#core/errors.ts";
import { redirect } from "../../_shared/session.ts";

/**
 * Answers an invitation and goes back to the Account page with a notice. One no longer open (someone
 * else's, answered already, expired) says so there rather than as an error page: the page shows what is open.
 */
export async function answerInvitation(work: () => Promise<unknown>, done: "joined" | "declined") {
  try {
    await work();
    return redirect(`/account?done=${done}`);
  } catch (error) {
    if (error instanceof AppError && (error.code === "not_found" || error.code === "failed_precondition"))
      return redirect("/account?done=gone");
    throw error;
  }
}
