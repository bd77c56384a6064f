// Resolves an API key and a model (a deployment name) into everything the inference gateway needs for
// one request: who is calling, which deployment and where its ready replicas are, and the policies
// that apply. The inference gateway calls this in process when the gateways share one, or through
// POST /internal/context/resolve, and caches the answer for up to a second (so a revoked key or a
// stopped deployment is refused within a second).
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { type HostedAccess, hostedTargetOf } from "#adapters/upstream/wire/hosted.ts";
import type { DeploymentState } from "#core/domain.ts";
import { isWireId } from "#core/domain.ts";
import type { DeploymentConfiguration } from "#core/options.ts";
import type { Executor } from "#db/client.ts";
import { deployments } from "#db/schema/index.ts";
import { refusedKeyOwner, verifyApiKey } from "../api-keys/verify.ts";
import type { AppContext } from "../context.ts";
import { contextTokensOf } from "../inference/call-maximum.ts";
import type { HostedUpstream, InferenceContext, Resolution, RouteTarget } from "../inference/port.ts";
import { withDefaults } from "../orchestration/autoscaling/defaults.ts";
import { readyEndpoints, routableEndpoints } from "../orchestration/deployment-queries.ts";
import { effectivePolicies } from "../policies/effective.ts";
import { providerCredentials, providerSettings } from "../provider-configs/config.ts";
import { applicableBudgets, hasLimits } from "../spend/budgets.ts";
import { hostedModelPrice } from "../spend/hosted-prices.ts";
import { type DeploymentPrice, isPriced } from "../spend/prices.ts";

/** What a request needs of a deployment it may be routed to: the one asked for, or a fallback. */
const routedDeploymentColumns = {
  id: deployments.id,
  name: deployments.name,
  status: deployments.status,
  desiredState: deployments.desiredState,
  engine: deployments.engine,
  inferenceModel: deployments.inferenceModel,
  configuration: deployments.configuration,
  input_price_per_million: deployments.inputPricePerMillion,
  output_price_per_million: deployments.outputPricePerMillion,
  cached_input_price_per_million: deployments.cachedInputPricePerMillion,
  estimated_cost_per_hour: deployments.estimatedCostPerHour,
};

type Ctx = Pick<AppContext, "db" | "log" | "clock" | "lastUsed" | "config">;

/** The port's context, plus the deployment's status for callers that show it. */
export interface ResolvedContext extends InferenceContext {
  deployment: InferenceContext["deployment"] & { status: DeploymentState };
}

export type ContextResolution = { ok: true; context: ResolvedContext } | Extract<Resolution, { ok: false }>;

/** States in which a deployment will not serve again until someone starts it. */
const stopped: ReadonlySet<DeploymentState> = new Set(["STOPPING", "STOPPED", "FAILED"]);

export async function resolveInferenceContext(
  ctx: Ctx,
  apiKey: string,
  model: string,
): Promise<ContextResolution> {
  const key = await verifyApiKey(ctx, apiKey);
  if (!key) {
    const owner = await refusedKeyOwner(ctx, apiKey);
    const caller = owner && { orgId: owner.orgId, apiKeyId: owner.keyId, keyPrefix: owner.prefix };
    return { ok: false, reason: "invalid_api_key", caller };
  }
  return contextOf(ctx, key.orgId, model, {
    apiKeyId: key.keyId,
    keyPrefix: key.prefix,
    deploymentIds: key.deploymentIds,
  });
}

/** What the dashboard's playground records in place of a key prefix. */
export const dashboardKeyPrefix = "dashboard";

/**
 * The context of a signed-in user of the organization calling a deployment from the dashboard's
 * playground: no API key (so no key restriction); the rate limit counts per user, the log records the
 * call as the dashboard's. The route's guard has already checked the user's permission.
 */
export function resolveUserContext(
  ctx: Ctx,
  actor: { orgId: string; userId: string },
  model: string,
): Promise<ContextResolution> {
  return contextOf(ctx, actor.orgId, model, {
    apiKeyId: "",
    keyPrefix: dashboardKeyPrefix,
    userId: actor.userId,
    deploymentIds: [],
  });
}

interface Caller {
  apiKeyId: string;
  keyPrefix: string;
  userId?: string;
  /** The deployments the caller may use; empty: all of the organization's. */
  deploymentIds: string[];
}

async function contextOf(ctx: Ctx, orgId: string, model: string, caller: Caller): Promise<ContextResolution> {
  // A refusal below is logged in the organization, with the key that made the call.
  const refused = { orgId, apiKeyId: caller.apiKeyId, keyPrefix: caller.keyPrefix };
  const [deployment] = await ctx.db
    .select(routedDeploymentColumns)
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), eq(deployments.name, model), isNull(deployments.deletedAt)))
    .limit(1);
  if (!deployment) return { ok: false, reason: "model_not_found", caller: refused };
  if (caller.deploymentIds.length > 0 && !caller.deploymentIds.includes(deployment.id)) {
    return { ok: false, reason: "model_not_allowed", caller: refused };
  }
  const serving = !(stopped.has(deployment.status) || deployment.desiredState === "stopped");
  const [endpoints, policies, budgets] = await Promise.all([
    serving ? readyEndpoints(ctx.db, deployment.id) : [],
    effectivePolicies(ctx.db, orgId, deployment.id),
    applicableBudgets(ctx.db, orgId, caller.apiKeyId || undefined),
  ]);
  const hosted = hostedUpstreams(ctx, orgId);
  const [fallbacks, upstream] = await Promise.all([
    fallbackTargets(ctx.db, orgId, deployment.id, policies.routing?.fallbacks, caller, hosted),
    hosted.upstream(deployment),
  ]);
  // A stopped deployment still resolves when a fallback can answer for it.
  if (!serving && fallbacks.length === 0) {
    return { ok: false, reason: "deployment_unavailable", caller: refused };
  }
  const price = await hosted.price(deployment, upstream);
  const context: ResolvedContext = {
    orgId,
    apiKeyId: caller.apiKeyId,
    keyPrefix: caller.keyPrefix,
    ...(caller.userId ? { userId: caller.userId } : {}),
    deployment: { id: deployment.id, name: deployment.name, status: deployment.status },
    endpoints,
    ...(upstream ? { upstream } : {}),
    rateLimit: policies.rate_limit,
    quota: policies.quota,
    guardrails: policies.guardrails,
    rag: policies.rag,
    // A prompt policy of `template_id: null` switches the organization's template off for this deployment.
    prompt: policies.prompt?.template_id ? { template_id: policies.prompt.template_id } : undefined,
    ...(price ? { price } : {}),
    ...(hasLimits(budgets) ? { budgets } : {}),
  };
  const contextTokens = contextTokensOf(deployment.engine, deployment.configuration);
  if (contextTokens !== undefined) context.contextTokens = contextTokens;
  if (fallbacks.length > 0) context.fallbacks = fallbacks;
  if (policies.routing?.prefix_affinity === false) context.prefixAffinity = false;
  // A stopped deployment never starts for a request: only a running one scaled to zero is waited for.
  if (serving && policies.autoscaling?.max_replicas) {
    const settings = withDefaults(policies.autoscaling);
    context.coldStart = {
      cold_start_timeout_s: settings.cold_start_timeout_s,
      max_queued: settings.max_queued,
    };
  }
  const cache = policies.cache;
  if (cache && cache.mode !== "off") {
    context.cache = cache;
    if (cache.mode === "semantic" && cache.semantic)
      context.cacheEmbeddingEndpoints = await routableEndpoints(
        ctx.db,
        orgId,
        cache.semantic.embedding_deployment,
      );
  }
  const classifier = policies.guardrails?.input?.classifier;
  if (classifier && classifier.action !== "off") {
    context.classifierEndpoints = await routableEndpoints(ctx.db, orgId, classifier.deployment);
  }
  return { ok: true, context };
}

interface DeploymentUpstream {
  name: string;
  engine: string;
  inferenceModel: string | null;
  configuration: DeploymentConfiguration;
}

/**
 * The hosted upstream of a deployment whose engine is a wire format (an `external` pool), with the
 * credential it names from the organization's external provider configuration, read at most once per
 * resolution (the asked deployment and its fallbacks share it). Undefined for other engines.
 */
function hostedUpstreams(ctx: Ctx, orgId: string) {
  let access: Promise<HostedAccess> | undefined;
  const accessOf = () => {
    access ??= Promise.all([
      providerCredentials(ctx, orgId, "external"),
      providerSettings(ctx, orgId, "external"),
    ]).then(([credentials, settings]) => ({ credentials, settings }));
    return access;
  };
  return {
    async upstream(d: DeploymentUpstream): Promise<HostedUpstream | undefined> {
      if (!isWireId(d.engine)) return undefined;
      return { wire: d.engine, ...hostedTargetOf(d, await accessOf()) };
    },
    /**
     * The deployment's own prices when it has any; else, for a hosted deployment, its upstream model's
     * from the organization's price table or the shipped list (services/spend/hosted-prices.ts).
     */
    async price(
      d: PricedDeployment,
      upstream: HostedUpstream | undefined,
    ): Promise<DeploymentPrice | undefined> {
      const own: DeploymentPrice = {
        input_price_per_million: d.input_price_per_million,
        output_price_per_million: d.output_price_per_million,
        cached_input_price_per_million: d.cached_input_price_per_million,
        estimated_cost_per_hour: d.estimated_cost_per_hour,
      };
      if (isPriced(own) || !upstream) return isPriced(own) ? own : undefined;
      return hostedModelPrice(upstream.model, (await accessOf()).settings);
    },
  };
}

interface PricedDeployment {
  input_price_per_million: number | null;
  output_price_per_million: number | null;
  cached_input_price_per_million: number | null;
  estimated_cost_per_hour: number | null;
}

/**
 * The routing policy's fallbacks that can serve this caller now, in the policy's order: live, not
 * stopped, with a ready replica, and allowed to the caller's key (a fallback the key may not use is
 * skipped, never a way around the key's restriction).
 */
async function fallbackTargets(
  db: Executor,
  orgId: string,
  deploymentId: string,
  names: string[] | undefined,
  caller: Caller,
  hosted: ReturnType<typeof hostedUpstreams>,
): Promise<RouteTarget[]> {
  if (!names || names.length === 0) return [];
  const rows = await db
    .select(routedDeploymentColumns)
    .from(deployments)
    .where(
      and(eq(deployments.orgId, orgId), inArray(deployments.name, names), isNull(deployments.deletedAt)),
    );
  const usable = names.flatMap((name) => {
    const d = rows.find((r) => r.name === name);
    if (!d || d.id === deploymentId) return [];
    if (caller.deploymentIds.length > 0 && !caller.deploymentIds.includes(d.id)) return [];
    if (stopped.has(d.status) || d.desiredState === "stopped") return [];
    return [d];
  });
  const targets = await Promise.all(
    usable.map(async (d): Promise<RouteTarget> => {
      const [endpoints, upstream] = await Promise.all([readyEndpoints(db, d.id), hosted.upstream(d)]);
      const price = await hosted.price(d, upstream);
      return {
        deployment: { id: d.id, name: d.name },
        endpoints,
        ...(upstream ? { upstream } : {}),
        ...(price ? { price } : {}),
      };
    }),
  );
  return targets.filter((t) => t.endpoints.length > 0);
}

/** The deployments a key may call, for GET /v1/models; undefined for a key that does not work. */
export async function modelsForApiKey(
  ctx: Ctx,
  apiKey: string,
): Promise<{ id: string; created: number }[] | undefined> {
  const key = await verifyApiKey(ctx, apiKey);
  if (!key) return undefined;
  const rows = await ctx.db
    .select({ id: deployments.id, name: deployments.name, createdAt: deployments.createdAt })
    .from(deployments)
    .where(and(eq(deployments.orgId, key.orgId), isNull(deployments.deletedAt)))
    .orderBy(asc(deployments.name));
  return rows
    .filter((d) => key.deploymentIds.length === 0 || key.deploymentIds.includes(d.id))
    .map((d) => ({ id: d.name, created: Math.floor(d.createdAt.getTime() / 1000) }));
}
