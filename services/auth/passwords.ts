// Slow, salted hashes (argon2id through Bun.password). The dummy hash keeps the time of a login for an
// unknown e-mail equal to that of a wrong password, so timing does not reveal which e-mails exist.

export const hashPassword = (password: string): Promise<string> =>
  Bun.password.hash(password, { algorithm: "argon2id" });

export const verifyPassword = (password: string, hash: string): Promise<boolean> =>
  Bun.password.verify(password, hash).catch(() => false);

let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword(crypto.randomUUID());
  await verifyPassword(password, await dummy);
}

export function generatePassword(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");
}

export const passwordProblem = (password: string): string | undefined =>
  password.length < 8 ? "must be at least 8 characters" : password.length > 256 ? "is too long" : undefined;
