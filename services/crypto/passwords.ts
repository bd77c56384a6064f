// Slow, salted hashes (argon2id through Bun.password). The dummy hash keeps the time of a login for an
// unknown e-mail equal to that of a wrong password, so timing does not reveal which e-mails exist.

import type { PasswordHashCost } from "../config.ts";

export const hashPassword = (password: string, cost: PasswordHashCost): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id", memoryCost: cost.memoryKib, timeCost: cost.timeCost });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash).catch(() => false);

/** One dummy hash per cost, made at the cost a real user's new hash would have. */
const dummies = new Map<string, Promise<string>>();
export async function burnPasswordCheck(password: string, cost: PasswordHashCost): Promise<void> {
  const key = `${cost.memoryKib}:${cost.timeCost}`;
  let dummy = dummies.get(key);
  if (!dummy) {
    dummy = hashPassword(crypto.randomUUID(), cost);
    dummies.set(key, dummy);
  }
  await verifyPassword(password, await dummy);
}

export function generatePassword(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");
}

/** The floor of PASSWORD_MIN_LENGTH (OWASP ASVS 2.1.1: at least 12 characters); it may be set higher. */
export const PASSWORD_MIN_LENGTH_FLOOR = 12;
export const PASSWORD_MAX_LENGTH = 256;

export const passwordProblem = (password: string, minLength: number): string | undefined =>
  password.length < minLength
    ? `must be at least ${minLength} characters`
    : password.length > PASSWORD_MAX_LENGTH
      ? "is too long"
      : undefined;
