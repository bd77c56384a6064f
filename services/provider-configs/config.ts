// Each organization's settings and credentials per compute provider. Credentials are sealed with
// ENCRYPTION_KEY before they reach the database and leave the HTTP API only masked; the provider
// adapters read them in clear through providerCredentials(), which no route calls.

import { and, eq } from "drizzle-orm";
import { type ProviderId, providerIds } from "#core/domain.ts";
import { invalid } from "#core/errors.ts";
import { isOneOf } from "#core/validation.ts";
import { type ProviderConfigRow, providerConfigs } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { type AppContext, actorOf, type RequestContext } from "../context.ts";
import { open, seal } from "../crypto/secret-box.ts";
import { checkExternalSettings } from "../spend/hosted-prices.ts";
import { checkProviderUrls } from "./urls.ts";

export type Credentials = Record<string, string>;
/** A provider's settings: free-form per provider (docs/providers.md), checked where they are read. */
export type ProviderSettings = ProviderConfigRow["settings"];

export interface ProviderConfigView {
  provider: ProviderId;
  /** False while nothing was ever saved for this provider. */
  configured: boolean;
  settings: ProviderSettings;
  /** Each credential masked: `****` and, for values of 12 characters or more, their last 4. */
  credentials: Record<string, string>;
  updated_at: string | null;
}

export interface SetProviderConfigInput {
  provider: string;
  settings?: ProviderSettings | undefined;
  /** Replaces every stored credential; left out, the stored ones stay. `{}` removes them all. */
  credentials?: Credentials | undefined;
}

const credentialName = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export function maskSecret(value: string): string {
  return value.length >= 12 ? `****${value.slice(-4)}` : "****";
}

const providerOf = (value: string): ProviderId => {
  if (isOneOf(providerIds, value)) return value;
  throw invalid("provider", `unknown provider; known: ${providerIds.join(", ")}`);
};

function unseal(ctx: Pick<AppContext, "config">, row: ProviderConfigRow): Credentials {
  if (!row.credentialsSealed) return {};
  return JSON.parse(open(ctx.config.encryptionKey, row.credentialsSealed)) as Credentials;
}

function viewOf(
  ctx: Pick<AppContext, "config">,
  provider: ProviderId,
  row: ProviderConfigRow | undefined,
): ProviderConfigView {
  if (!row) return { provider, configured: false, settings: {}, credentials: {}, updated_at: null };
  const masked = Object.fromEntries(Object.entries(unseal(ctx, row)).map(([k, v]) => [k, maskSecret(v)]));
  return {
    provider,
    configured: true,
    settings: row.settings,
    credentials: masked,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Every provider, configured or not, in the order of providerIds. */
export async function listProviderConfigs(ctx: RequestContext): Promise<{ providers: ProviderConfigView[] }> {
  const rows = await ctx.db
    .select()
    .from(providerConfigs)
    .where(eq(providerConfigs.orgId, actorOf(ctx).orgId));
  return {
    providers: providerIds.map((p) =>
      viewOf(
        ctx,
        p,
        rows.find((r) => r.provider === p),
      ),
    ),
  };
}

export async function setProviderConfig(
  ctx: RequestContext,
  input: SetProviderConfigInput,
): Promise<ProviderConfigView> {
  const actor = actorOf(ctx);
  const provider = providerOf(input.provider);
  if (input.credentials) {
    for (const [name, value] of Object.entries(input.credentials)) {
      if (!credentialName.test(name)) throw invalid(`credentials.${name}`, "is not a valid credential name");
      if (typeof value !== "string" || value === "")
        throw invalid(`credentials.${name}`, "must be a non-empty string");
    }
  }
  if (input.settings) await checkProviderUrls(input.settings, ctx.config.providerUrls);
  // Hosted upstreams: the organization's price table and its credentials' options (docs/providers.md).
  if (input.settings && provider === "external") checkExternalSettings(input.settings);
  return mutate(ctx, "provider_config.update", { type: "provider_config", id: provider }, async (tx) => {
    const now = ctx.clock();
    const sealed =
      input.credentials === undefined
        ? undefined
        : Object.keys(input.credentials).length === 0
          ? null
          : seal(ctx.config.encryptionKey, JSON.stringify(input.credentials));
    const [row] = await tx
      .insert(providerConfigs)
      .values({
        orgId: actor.orgId,
        provider,
        settings: input.settings ?? {},
        credentialsSealed: sealed ?? null,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [providerConfigs.orgId, providerConfigs.provider],
        set: {
          updatedAt: now,
          ...(input.settings !== undefined ? { settings: input.settings } : {}),
          ...(sealed !== undefined ? { credentialsSealed: sealed } : {}),
        },
      })
      .returning();
    return {
      result: viewOf(ctx, provider, row),
      // Which credentials were set, never their values.
      details: {
        provider,
        settings_changed: input.settings !== undefined,
        credentials_set: input.credentials === undefined ? null : Object.keys(input.credentials).sort(),
      },
    };
  });
}

/**
 * The provider's credentials in clear, for the provider adapters; undefined when none are stored.
 * Never exposed over HTTP.
 */
export async function providerCredentials(
  ctx: Pick<AppContext, "db" | "config">,
  orgId: string,
  provider: ProviderId,
): Promise<Credentials | undefined> {
  const [row] = await ctx.db
    .select()
    .from(providerConfigs)
    .where(and(eq(providerConfigs.orgId, orgId), eq(providerConfigs.provider, provider)))
    .limit(1);
  if (!row?.credentialsSealed) return undefined;
  return unseal(ctx, row);
}

/** The provider's settings (not secret); `{}` when none are stored. */
export async function providerSettings(
  ctx: Pick<AppContext, "db">,
  orgId: string,
  provider: ProviderId,
): Promise<ProviderSettings> {
  const [row] = await ctx.db
    .select({ settings: providerConfigs.settings })
    .from(providerConfigs)
    .where(and(eq(providerConfigs.orgId, orgId), eq(providerConfigs.provider, provider)))
    .limit(1);
  return row?.settings ?? {};
}
