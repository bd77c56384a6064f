// The stored responses of POST /v1/responses (db/schema/stored-responses.ts), per organization: every
// lookup names the organization, so another organization's id reads as not found.
import { and, eq } from "drizzle-orm";
import type { ConversationItem, ResponseObject } from "#contracts/openai/responses.ts";
import { AppError, invalid } from "#core/errors.ts";
import { storedResponses } from "#db/schema/index.ts";
import { isForeignKeyViolation, isUniqueViolation } from "#db/unique-violation.ts";
import { verifyApiKey } from "../api-keys/verify.ts";
import type { AppContext } from "../context.ts";
import type { KeyedLookup, ResponseStorePort, StoredResponse } from "../inference/port.ts";

type Ctx = Pick<AppContext, "db" | "log" | "clock" | "lastUsed">;

/** A response id taken, or an organization that does not exist, is the caller's error, not a 500. */
export async function saveResponse(ctx: Ctx, record: StoredResponse): Promise<void> {
  try {
    await ctx.db.insert(storedResponses).values({
      id: record.id,
      orgId: record.orgId,
      apiKeyId: record.apiKeyId ?? null,
      deploymentId: record.deploymentId,
      conversation: record.conversation,
      body: record.body,
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError("already_exists", `response ${record.id} is already stored`);
    if (isForeignKeyViolation(error)) throw invalid("org_id", "no such organization");
    throw error;
  }
}

/** The response `id` of the organization of `apiKey`. */
export async function findResponse(ctx: Ctx, apiKey: string, id: string): Promise<KeyedLookup> {
  const key = await verifyApiKey(ctx, apiKey);
  if (!key) return { ok: false, reason: "invalid_api_key" };
  const [row] = await ctx.db
    .select()
    .from(storedResponses)
    .where(and(eq(storedResponses.id, id), eq(storedResponses.orgId, key.orgId)))
    .limit(1);
  if (!row) return { ok: false, reason: "not_found" };
  return {
    ok: true,
    response: {
      id: row.id,
      orgId: row.orgId,
      apiKeyId: row.apiKeyId ?? undefined,
      deploymentId: row.deploymentId ?? undefined,
      // Written by saveResponse from these very types.
      conversation: row.conversation as ConversationItem[],
      body: current(row.body as ResponseObject),
    },
  };
}

/**
 * A body stored before responses followed OpenAI's document to the letter (`user: null`, `usage: null`,
 * no `cache_write_tokens`), as it would be written now.
 */
function current(body: ResponseObject): ResponseObject {
  const { user, usage, ...rest } = body;
  return {
    ...rest,
    ...(typeof user === "string" ? { user } : {}),
    ...(usage
      ? {
          usage: {
            ...usage,
            input_tokens_details: {
              ...usage.input_tokens_details,
              cache_write_tokens: usage.input_tokens_details.cache_write_tokens ?? 0,
            },
          },
        }
      : {}),
  };
}

/** Deletes the response `id` of the organization of `apiKey`; not_found when there is none. */
export async function deleteResponse(
  ctx: Ctx,
  apiKey: string,
  id: string,
): ReturnType<ResponseStorePort["delete"]> {
  const key = await verifyApiKey(ctx, apiKey);
  if (!key) return { ok: false, reason: "invalid_api_key" };
  const deleted = await ctx.db
    .delete(storedResponses)
    .where(and(eq(storedResponses.id, id), eq(storedResponses.orgId, key.orgId)))
    .returning({ id: storedResponses.id });
  return deleted.length > 0 ? { ok: true } : { ok: false, reason: "not_found" };
}
