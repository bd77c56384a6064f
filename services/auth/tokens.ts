// Access and refresh tokens (JWT, HS256). jose is the library @elysiajs/jwt wraps; using it directly
// lets the HTTP guard, the gRPC interceptor and the dashboard share one implementation.
import { errors, jwtVerify, SignJWT } from "jose";
import { AppError } from "#core/errors.ts";

export const accessTokenSeconds = 15 * 60;
export const refreshTokenSeconds = 7 * 24 * 60 * 60;

export const secondFactorTokenSeconds = 5 * 60;

/** `second_factor`: the dashboard's proof that a sign-in's password was right, while its code is due. */
export type TokenType = "access" | "refresh" | "second_factor";

export interface TokenClaims {
  /** User id. */
  sub: string;
  /** Active organization. */
  org: string;
  typ: TokenType;
  /** Refresh tokens: their row id and family. */
  jti?: string;
  fam?: string;
  /** Access tokens: their session, the refresh-token family of the sign-in that issued them. */
  sid?: string;
  exp: number;
}

const keys = new Map<string, Uint8Array>();
const keyOf = (secret: string) => {
  let key = keys.get(secret);
  if (!key) {
    key = new TextEncoder().encode(secret);
    keys.set(secret, key);
  }
  return key;
};

export async function signToken(
  secret: string,
  claims: Omit<TokenClaims, "exp">,
  lifetimeSeconds: number,
  now: Date,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const jwt = new SignJWT({
    org: claims.org,
    typ: claims.typ,
    ...(claims.fam ? { fam: claims.fam } : {}),
    ...(claims.sid ? { sid: claims.sid } : {}),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + lifetimeSeconds);
  if (claims.jti) jwt.setJti(claims.jti);
  return jwt.sign(keyOf(secret));
}

/** Verifies signature, expiry and type; any failure is `unauthenticated` without saying which. */
export async function verifyToken(
  secret: string,
  token: string,
  expected: TokenType,
  now: Date,
): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      algorithms: ["HS256"],
      currentDate: now,
    });
    if (payload.typ !== expected || typeof payload.sub !== "string" || typeof payload.org !== "string") {
      throw new AppError("unauthenticated", "invalid token");
    }
    return payload as unknown as TokenClaims;
  } catch (error) {
    if (error instanceof AppError) throw error;
    const expired = error instanceof errors.JWTExpired;
    throw new AppError("unauthenticated", expired ? "token expired" : "invalid token");
  }
}
