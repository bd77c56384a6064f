// What hosted models cost: a table of list prices per upstream model name, shipped with the platform,
// that each organization may edit (its `external` provider configuration's `settings.model_prices`).
// A hosted deployment without prices of its own is charged at its upstream model's (its
// inference_model) from this table; prices given at deploy win. Either way each request's `cost`
// feeds spend and budgets like a self-hosted deployment's (services/spend/prices.ts).
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError, type FieldProblem } from "#core/errors.ts";
import type { ProviderConfigRow } from "#db/schema/index.ts";
import { type DeploymentPrice, maxPricePerMillion } from "./prices.ts";

const Price = T.Number({ minimum: 0, maximum: maxPricePerMillion });

/** One model's list prices, US dollars per million tokens. */
export const ModelPrice = T.Object(
  {
    input_price_per_million: Price,
    output_price_per_million: Price,
    /** Prompt tokens the upstream served from its cache (OpenAI cached input, Anthropic cache reads). */
    cached_input_price_per_million: T.Optional(T.Union([Price, T.Null()])),
  },
  { additionalProperties: false },
);
export type ModelPrice = Static<typeof ModelPrice>;

export const ModelPrices = T.Record(T.String({ minLength: 1, maxLength: 256 }), ModelPrice);
export type ModelPrices = Static<typeof ModelPrices>;

/** When and where the shipped prices were read (docs/providers.md repeats it). */
export const listPricesAsOf = "2025-10 (vendors' pricing pages; see docs/providers.md)";

/**
 * List prices, standard tier, prompts under the long-context threshold, USD per million tokens, from
 * openai.com/api/pricing, docs.anthropic.com/en/docs/about-claude/pricing and
 * ai.google.dev/gemini-api/docs/pricing. Prices change: an organization's own table overrides these.
 */
export const listPrices: Readonly<ModelPrices> = {
  "gpt-4.1": { input_price_per_million: 2, output_price_per_million: 8, cached_input_price_per_million: 0.5 },
  "gpt-4.1-mini": {
    input_price_per_million: 0.4,
    output_price_per_million: 1.6,
    cached_input_price_per_million: 0.1,
  },
  "gpt-4.1-nano": {
    input_price_per_million: 0.1,
    output_price_per_million: 0.4,
    cached_input_price_per_million: 0.025,
  },
  "gpt-4o": {
    input_price_per_million: 2.5,
    output_price_per_million: 10,
    cached_input_price_per_million: 1.25,
  },
  "gpt-4o-mini": {
    input_price_per_million: 0.15,
    output_price_per_million: 0.6,
    cached_input_price_per_million: 0.075,
  },
  "text-embedding-3-small": { input_price_per_million: 0.02, output_price_per_million: 0 },
  "text-embedding-3-large": { input_price_per_million: 0.13, output_price_per_million: 0 },
  "claude-sonnet-4-5": {
    input_price_per_million: 3,
    output_price_per_million: 15,
    cached_input_price_per_million: 0.3,
  },
  "claude-sonnet-4": {
    input_price_per_million: 3,
    output_price_per_million: 15,
    cached_input_price_per_million: 0.3,
  },
  "claude-haiku-4-5": {
    input_price_per_million: 1,
    output_price_per_million: 5,
    cached_input_price_per_million: 0.1,
  },
  "claude-3-5-haiku": {
    input_price_per_million: 0.8,
    output_price_per_million: 4,
    cached_input_price_per_million: 0.08,
  },
  "gemini-2.5-flash": {
    input_price_per_million: 0.3,
    output_price_per_million: 2.5,
    cached_input_price_per_million: 0.03,
  },
  "gemini-2.5-flash-lite": {
    input_price_per_million: 0.1,
    output_price_per_million: 0.4,
    cached_input_price_per_million: 0.01,
  },
  "gemini-2.0-flash": {
    input_price_per_million: 0.1,
    output_price_per_million: 0.4,
    cached_input_price_per_million: 0.025,
  },
};

/**
 * The names a model is looked up by, most specific first: as given, without a `models/` prefix
 * (Gemini), without a dated snapshot suffix (`gpt-4o-mini-2024-07-18`, `claude-sonnet-4-20250514`)
 * or a `-latest` / `-0` alias suffix (`claude-3-5-haiku-latest`, `claude-sonnet-4-0`).
 */
export function priceKeysOf(model: string): string[] {
  const bare = model.replace(/^models\//, "");
  const undated = bare.replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest|0|\d{3})$/, "");
  return [...new Set([model, bare, undated])];
}

const checkPrices = TypeCompiler.Compile(ModelPrices);

/** The `external` provider configuration's settings, where an organization's table lives. */
type Settings = Readonly<ProviderConfigRow["settings"]>;

/** An organization's table from its settings; entries that do not fit are ignored (checked when saved). */
function organizationPrices(settings: Settings): ModelPrices {
  const table = settings.model_prices;
  return checkPrices.Check(table) ? table : {};
}

/** The price of an upstream model: the organization's table, else the shipped list; undefined if neither has it. */
export function hostedModelPrice(model: string, settings: Settings): DeploymentPrice | undefined {
  const own = organizationPrices(settings);
  for (const key of priceKeysOf(model)) {
    const found = own[key] ?? listPrices[key];
    if (found) {
      return {
        input_price_per_million: found.input_price_per_million,
        output_price_per_million: found.output_price_per_million,
        cached_input_price_per_million: found.cached_input_price_per_million ?? null,
        estimated_cost_per_hour: null,
      };
    }
  }
  return undefined;
}

/** Refuses an `external` configuration whose `model_prices` or `credential_options` do not fit: 400 naming each. */
export function checkExternalSettings(settings: Settings): void {
  const problems: FieldProblem[] = [];
  if (settings.model_prices !== undefined && !checkPrices.Check(settings.model_prices)) {
    for (const error of checkPrices.Errors(settings.model_prices)) {
      const field = `settings.model_prices${error.path.replaceAll("/", ".")}`;
      if (!problems.some((p) => p.field === field))
        problems.push({ field, message: `must be a price per million tokens, 0 to ${maxPricePerMillion}` });
    }
  }
  const options = settings.credential_options;
  if (options !== undefined) {
    const fits =
      typeof options === "object" &&
      options !== null &&
      Object.values(options).every(
        (o) => typeof o === "object" && o !== null && Object.values(o).every((v) => typeof v === "string"),
      );
    if (!fits)
      problems.push({
        field: "settings.credential_options",
        message: "must map each credential's name to an object of strings (e.g. api_version, flavor)",
      });
  }
  if (problems.length === 0) return;
  const first = problems[0] as FieldProblem;
  throw new AppError("validation_error", `${first.field}: ${first.message}`, { fields: problems });
}

export interface HostedPriceRow extends ModelPrice {
  model: string;
  /** `organization`: the organization's own table; `list`: the shipped list price. */
  source: "organization" | "list";
}

/** The table as it applies to an organization: its own prices over the shipped list, by model name. */
export function effectiveHostedPrices(settings: Settings): {
  list_prices_as_of: string;
  prices: HostedPriceRow[];
} {
  const own = organizationPrices(settings);
  const rows = new Map<string, HostedPriceRow>();
  for (const [model, price] of Object.entries(listPrices))
    rows.set(model, { model, ...price, source: "list" });
  for (const [model, price] of Object.entries(own))
    rows.set(model, { model, ...price, source: "organization" });
  return {
    list_prices_as_of: listPricesAsOf,
    prices: [...rows.values()].sort((a, b) => a.model.localeCompare(b.model)),
  };
}
