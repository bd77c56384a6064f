// The config of each policy type (CONTRACTS, Policies), one TypeBox schema each. Unknown fields are
// refused, so a misspelt limit is a 400 rather than a limit silently not applied.
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { type PolicyType, policyTypes } from "#core/domain.ts";
import { AppError, type FieldProblem } from "#core/errors.ts";

const strict = { additionalProperties: false } as const;
const uuid = T.String({
  pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
});
const count = T.Integer({ minimum: 1, maximum: 1_000_000_000_000 });

export const RateLimitConfig = T.Object(
  {
    requests_per_minute: T.Optional(count),
    tokens_per_minute: T.Optional(count),
    on_store_error: T.Optional(
      T.Union([T.Literal("open"), T.Literal("closed")], {
        description:
          "While the shared counter store (REDIS_URL) is unreachable: `open` (the default) lets requests " +
          "through uncounted; `closed` refuses them with 503 deployment_unavailable and Retry-After",
      }),
    ),
  },
  { ...strict, description: "Counted per API key per deployment" },
);

export const QuotaConfig = T.Object(
  {
    requests_per_day: T.Optional(count),
    tokens_per_day: T.Optional(count),
  },
  { ...strict, description: "Counted per organization, per UTC day" },
);

const Scanner = T.Object(
  {
    action: T.Union([T.Literal("off"), T.Literal("log"), T.Literal("redact"), T.Literal("block")]),
    threshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  },
  strict,
);

/** Prompt injection and toxicity: patterns and a trained classifier, each with its own threshold. */
const ClassifiedScanner = T.Object(
  {
    action: T.Union([T.Literal("off"), T.Literal("log"), T.Literal("redact"), T.Literal("block")]),
    threshold: T.Optional(
      T.Number({ minimum: 0, maximum: 1, description: "The patterns' score; default 0.5" }),
    ),
    classifier_threshold: T.Optional(
      T.Number({
        minimum: 0,
        maximum: 1,
        description:
          "The trained classifier's probability; default the model's own (0.82 prompt injection, 0.95 toxicity); 1 turns it off",
      }),
    ),
  },
  strict,
);

/** A RUNNING deployment of the organization asked to classify the input (a guard model). */
export const ClassifierScanner = T.Object(
  {
    action: T.Union([T.Literal("off"), T.Literal("log"), T.Literal("block")]),
    deployment: T.String({ minLength: 1, maxLength: 100, description: "The guard model's deployment name" }),
    threshold: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    timeout_ms: T.Optional(T.Integer({ minimum: 50, maximum: 30_000, description: "Default 2000" })),
    on_error: T.Optional(
      T.Union([T.Literal("allow"), T.Literal("block")], {
        description: "allow (fail open, the default) or block (fail closed) when it cannot answer in time",
      }),
    ),
    format: T.Optional(
      T.Union(
        [T.Literal("label"), T.Literal("llama-guard"), T.Literal("shieldgemma"), T.Literal("prompt-guard")],
        {
          description:
            "The guard model's prompt and answer: label (the default: safe/unsafe or a number), llama-guard (Llama Guard 3), shieldgemma, prompt-guard (POST /classify)",
        },
      ),
    ),
    policy: T.Optional(
      T.String({
        minLength: 1,
        maxLength: 4000,
        description: "shieldgemma: the safety policy (default its four harm types)",
      }),
    ),
  },
  strict,
);

/**
 * Instructions for the assistant planted in text it reads as data (tool results). block refuses the
 * request; strip replaces the message's content by a notice; wrap keeps it, quoted as untrusted data.
 */
export const IndirectInjectionScanner = T.Object(
  {
    action: T.Union(
      [T.Literal("off"), T.Literal("log"), T.Literal("block"), T.Literal("strip"), T.Literal("wrap")],
      {
        description:
          "off, log, block, strip (the tool result is replaced by a notice) or wrap (quoted as untrusted data)",
      },
    ),
    threshold: T.Optional(
      T.Number({ minimum: 0, maximum: 1, description: "The patterns' score; default 0.5" }),
    ),
  },
  strict,
);

/** The model's tool-call arguments checked for instructions aimed at the next agent or tool. */
export const ToolCallInjectionScanner = T.Object(
  {
    action: T.Union([T.Literal("off"), T.Literal("log"), T.Literal("block")]),
    threshold: T.Optional(
      T.Number({ minimum: 0, maximum: 1, description: "The patterns' score; default 0.5" }),
    ),
  },
  strict,
);

export const GuardrailsConfig = T.Object(
  {
    input: T.Optional(
      T.Object(
        {
          pii: T.Optional(Scanner),
          toxicity: T.Optional(ClassifiedScanner),
          prompt_injection: T.Optional(ClassifiedScanner),
          classifier: T.Optional(ClassifierScanner),
          indirect_injection: T.Optional(IndirectInjectionScanner),
          mode: T.Optional(
            T.Union([T.Literal("blocking"), T.Literal("parallel")], {
              description:
                "blocking (the default): the model is asked once the input passed every scanner. parallel: once " +
                "the redacting scanner (pii: redact) has run, the model is asked while the blocking and logging " +
                "scanners run; nothing is sent to the client before they pass, and a block cancels the model's " +
                "call (it has seen the redacted prompt)",
            }),
          ),
        },
        strict,
      ),
    ),
    output: T.Optional(
      T.Object(
        {
          pii: T.Optional(Scanner),
          toxicity: T.Optional(ClassifiedScanner),
          indirect_injection: T.Optional(ToolCallInjectionScanner),
          mode: T.Optional(T.Union([T.Literal("blocking"), T.Literal("async")])),
        },
        strict,
      ),
    ),
  },
  { ...strict, description: "A scanner left out is off; `redact` is for pii only" },
);

export const RagConfig = T.Object(
  {
    collection_ids: T.Array(uuid, { maxItems: 50 }),
    top_k: T.Optional(T.Integer({ minimum: 1, maximum: 50 })),
    min_score: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
    embedding_deployment: T.Optional(
      T.String({
        minLength: 1,
        maxLength: 100,
        description:
          "The name of a deployment serving /v1/embeddings: its vector ranking is fused with full text. " +
          "When it is not RUNNING, retrieval uses full text alone and the inference log says so.",
      }),
    ),
  },
  strict,
);

export const PromptConfig = T.Object(
  {
    template_id: T.Union([uuid, T.Null()], {
      description: "null: no template (overrides the organization's)",
    }),
  },
  strict,
);

/**
 * Other deployments of the organization, by name, tried in order when this one cannot serve; and
 * whether requests sharing a prompt prefix go to the replica that served it (adapters/upstream/balancer.ts).
 */
export const RoutingConfig = T.Object(
  {
    fallbacks: T.Optional(
      T.Array(
        T.String({
          pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
          description: "A deployment name of the same organization",
        }),
        {
          maxItems: 10,
          uniqueItems: true,
          description:
            "Tried in order when the deployment has no ready replica or is not running, answers 5xx, " +
            "does not answer in time, or answers 429; [] (or leaving it out) turns fallbacks off",
        },
      ),
    ),
    prefix_affinity: T.Optional(
      T.Boolean({
        description:
          "Default true: a request goes to the replica that most recently served the longest prefix of its " +
          "prompt (where the engine still holds it), unless that replica is over its load bound; false: " +
          "fewest requests in flight alone",
      }),
    ),
  },
  { ...strict, description: "Deployment scope only" },
);

const money = T.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000_000 });

export const BudgetConfig = T.Object(
  {
    max_spend_per_day: T.Optional(money),
    max_spend_per_month: T.Optional(money),
  },
  {
    ...strict,
    description:
      "The most the organization (or one API key, with api_key_id) may spend per UTC day and calendar month, " +
      "in the deployments' price currency",
  },
);

const seconds = (max: number, description: string) => T.Number({ minimum: 0, maximum: max, description });

/** Deployment scope only (CONTRACTS); services/orchestration/autoscaling/README.md says how it is applied. */
export const AutoscalingConfig = T.Object(
  {
    min_replicas: T.Integer({ minimum: 0, maximum: 32, description: "0: scale to zero when idle" }),
    max_replicas: T.Integer({ minimum: 1, maximum: 32 }),
    target_in_flight_per_replica: T.Number({
      exclusiveMinimum: 0,
      maximum: 10_000,
      description: "Requests in flight (and waiting) per replica that the autoscaler aims at",
    }),
    target_tokens_per_second_per_replica: T.Optional(
      T.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description:
          "Beside the in-flight target: completion tokens per second per replica; the larger need wins",
      }),
    ),
    scale_up_delay_s: T.Optional(
      seconds(3600, "How long more replicas must be needed before they are added; default 5 (0 from zero)"),
    ),
    scale_down_delay_s: T.Optional(
      seconds(86_400, "How long fewer replicas must suffice before the surplus stops; default 300"),
    ),
    cold_start_timeout_s: T.Optional(
      T.Number({
        minimum: 1,
        maximum: 600,
        description: "How long a request waits for a replica when none is ready; default 120",
      }),
    ),
    max_queued: T.Optional(
      T.Integer({
        minimum: 0,
        maximum: 100_000,
        description: "Requests that may wait for a replica per gateway process; more get 503; default 100",
      }),
    ),
  },
  strict,
);

/**
 * The response cache (services/inference/response-cache/README.md): answers of the deployment kept and
 * replayed for identical requests (`exact`), or for a single-turn question close enough to one asked
 * before (`semantic`, which also does `exact`).
 */
export const CacheConfig = T.Object(
  {
    mode: T.Union([T.Literal("off"), T.Literal("exact"), T.Literal("semantic")], {
      description:
        "off: nothing cached; exact: a request identical to an earlier one (after templates and retrieval) " +
        "is answered from the cache when it sets temperature 0, or when the caller sends " +
        "`Cache-Control: max-age=N`; semantic: exact, and a single-turn request without tools whose " +
        "question is within `semantic.threshold` of one asked before",
    }),
    ttl_s: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: 30 * 86_400,
        description: "How long an answer is kept; default 3600",
      }),
    ),
    max_entries: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: "Answers kept per organization and deployment (the oldest go first); default 10000",
      }),
    ),
    semantic: T.Optional(
      T.Object(
        {
          embedding_deployment: T.String({
            pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
            description: "A deployment of the organization serving /v1/embeddings",
          }),
          threshold: T.Number({
            minimum: 0,
            maximum: 1,
            description:
              "The least cosine similarity between two questions for one's answer to serve the other",
          }),
        },
        strict,
      ),
    ),
  },
  { ...strict, description: "Deployment or organization scope" },
);

/** The `policy_type` of a policy's URL (the management API and the dashboard's policy pages). */
export const PolicyTypeParams = T.Object({
  policy_type: T.Union(
    policyTypes.map((p) => T.Literal(p)),
    { description: "rate_limit, quota, guardrails, rag, prompt, routing, budget, autoscaling or cache" },
  ),
});

export const policySchemas = {
  rate_limit: RateLimitConfig,
  quota: QuotaConfig,
  guardrails: GuardrailsConfig,
  rag: RagConfig,
  prompt: PromptConfig,
  routing: RoutingConfig,
  budget: BudgetConfig,
  autoscaling: AutoscalingConfig,
  cache: CacheConfig,
} satisfies Record<PolicyType, TSchema>;

/** Each policy type's config, derived from its schema: the one place these types are written. */
// `["static"]` is what Static<> reads, written so for a generic K too (storedConfig narrows to it).
export type PolicyConfig<K extends PolicyType> = (typeof policySchemas)[K]["static"];
export type PolicyConfigs = { [K in PolicyType]: PolicyConfig<K> };
export type RateLimitPolicy = PolicyConfigs["rate_limit"];
export type QuotaPolicy = PolicyConfigs["quota"];
export type GuardrailsPolicyConfig = PolicyConfigs["guardrails"];
export type ClassifierConfig = Static<typeof ClassifierScanner>;
export type IndirectInjectionSettings = Static<typeof IndirectInjectionScanner>;
export type RagPolicy = PolicyConfigs["rag"];
export type PromptPolicy = PolicyConfigs["prompt"];
export type RoutingPolicy = PolicyConfigs["routing"];
export type BudgetPolicy = PolicyConfigs["budget"];
export type AutoscalingPolicy = PolicyConfigs["autoscaling"];
export type CachePolicy = PolicyConfigs["cache"];

/** A stored policy: its type and that type's config, so a switch on `policy_type` narrows the config. */
export type StoredPolicy<K extends PolicyType = PolicyType> = {
  [P in K]: { policy_type: P; config: PolicyConfig<P> };
}[K];

// Compiled once: loading a policy is on the inference gateway's path (through the context resolve).
const checks: { [K in PolicyType]: TypeCheck<(typeof policySchemas)[K]> } = {
  rate_limit: TypeCompiler.Compile(RateLimitConfig),
  quota: TypeCompiler.Compile(QuotaConfig),
  guardrails: TypeCompiler.Compile(GuardrailsConfig),
  rag: TypeCompiler.Compile(RagConfig),
  prompt: TypeCompiler.Compile(PromptConfig),
  routing: TypeCompiler.Compile(RoutingConfig),
  budget: TypeCompiler.Compile(BudgetConfig),
  autoscaling: TypeCompiler.Compile(AutoscalingConfig),
  cache: TypeCompiler.Compile(CacheConfig),
};

/**
 * A config read back from the database, checked against its type's schema once, where it is loaded, so
 * every reader after gets the typed value. Configs are validated before they are written
 * (configProblems); one that no longer matches (a schema tightened since, a hand edit) is an error
 * to fix, not a value to guess at.
 */
export function storedConfig<K extends PolicyType>(type: K, config: unknown): PolicyConfig<K> {
  const check: TypeCheck<(typeof policySchemas)[K]> = checks[type];
  if (check.Check(config)) return config;
  throw new AppError("internal", `the stored ${type} policy does not match its schema; set it again`);
}

/** The policies that apply to one deployment, at most one of each type (services/policies/effective.ts). */
const EffectivePoliciesSchema = T.Partial(T.Object(policySchemas));
export type EffectivePolicies = Static<typeof EffectivePoliciesSchema>;
const effectiveCheck = TypeCompiler.Compile(EffectivePoliciesSchema);

/** storedConfig for every type at once: `configs` keyed by policy type. */
export function storedConfigs(configs: { [type: string]: unknown }): EffectivePolicies {
  if (effectiveCheck.Check(configs)) return configs;
  const [type = "policy"] = (effectiveCheck.Errors(configs).First()?.path ?? "").split("/").filter(Boolean);
  throw new AppError("internal", `the stored ${type} policy does not match its schema; set it again`);
}

/** A policy row as services read it: its config checked and typed by its policy type. */
export function storedPolicy<K extends PolicyType>(row: { policyType: K; config: unknown }): StoredPolicy<K> {
  return { policy_type: row.policyType, config: storedConfig(row.policyType, row.config) };
}

const off = { action: "off" } as const;

/**
 * What applies where nothing is set: no limits, no quota, every scanner off, no retrieval, no template,
 * no autoscaling (`{}`: the owner's replica count stays).
 */
export const policyDefaults: { [K in keyof PolicyConfigs]: PolicyConfigs[K] | Record<string, never> } = {
  rate_limit: {},
  quota: {},
  guardrails: {
    input: { pii: off, toxicity: off, prompt_injection: off },
    output: { pii: off, toxicity: off, mode: "blocking" },
  },
  rag: { collection_ids: [], top_k: 4, min_score: 0 },
  prompt: { template_id: null },
  routing: { fallbacks: [] },
  budget: {},
  autoscaling: {},
  cache: { mode: "off" },
};

/** Every problem of `config` against its type's schema, named `config.<path>`, first message per field. */
export function configProblems(type: PolicyType, config: unknown): FieldProblem[] {
  const seen = schemaProblems(type, config);
  if (seen.size === 0) meaningProblems(storedPolicy({ policyType: type, config }), seen);
  return [...seen].map(([field, message]) => ({ field, message }));
}

function schemaProblems(type: PolicyType, config: unknown): Map<string, string> {
  const seen = new Map<string, string>();
  for (const error of Value.Errors(policySchemas[type], config)) {
    const field = ["config", ...error.path.split("/").filter((s) => s !== "")].join(".");
    if (!seen.has(field)) seen.set(field, error.message);
  }
  return seen;
}

/** What the shape allows but the meaning does not. */
function meaningProblems(policy: StoredPolicy, seen: Map<string, string>): void {
  if (policy.policy_type === "guardrails") {
    // Masking a span cannot make an insult or an injection safe, so only pii may redact.
    const { input, output } = policy.config;
    const redacting: [string, { action: string } | undefined][] = [
      ["input.toxicity", input?.toxicity],
      ["input.prompt_injection", input?.prompt_injection],
      ["output.toxicity", output?.toxicity],
    ];
    for (const [path, settings] of redacting) {
      if (settings?.action === "redact")
        seen.set(`config.${path}.action`, "redact is for pii only; use log or block");
    }
  }
  if (policy.policy_type === "cache" && policy.config.mode === "semantic" && !policy.config.semantic)
    seen.set("config.semantic", "semantic mode needs {embedding_deployment, threshold}");
  if (policy.policy_type === "autoscaling" && policy.config.min_replicas > policy.config.max_replicas)
    seen.set("config.min_replicas", "must not be more than max_replicas");
}
