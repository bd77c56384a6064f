// A provider's settings may point the server at another API (`settings.base_url` of nosana, akash,
// skypilot, and any `*_url` setting): the server then calls that address from inside its network, so
// it gets the model sources' check (services/outbound-urls.ts): https, and every address
// the host resolves to public, unless the operator lists the host (PROVIDER_URL_ALLOWED_HOSTS) or allows
// http (PROVIDER_URL_ALLOW_HTTP). Checked when the settings are stored and again each time they are
// handed to an adapter (a name may resolve elsewhere later).

import { AppError, type FieldProblem } from "#core/errors.ts";
import type { ProviderConfigRow } from "#db/schema/index.ts";
import type { UrlRules } from "../config.ts";
import { resolvedUrlProblem } from "../outbound-urls.ts";

const isUrlSetting = (name: string) => name === "base_url" || name.endsWith("_url");

export async function providerUrlProblems(
  settings: Readonly<ProviderConfigRow["settings"]>,
  rules: UrlRules,
): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  await Promise.all(
    Object.entries(settings).map(async ([name, value]) => {
      if (!isUrlSetting(name) || value === undefined || value === null) return;
      const problem =
        typeof value === "string" ? await resolvedUrlProblem(value, rules) : "must be a URL (a string)";
      if (problem) problems.push({ field: `settings.${name}`, message: problem });
    }),
  );
  return problems;
}

/** Refuses settings whose URLs the server may not call: 400 naming each field. */
export async function checkProviderUrls(
  settings: Readonly<ProviderConfigRow["settings"]>,
  rules: UrlRules,
): Promise<void> {
  const problems = await providerUrlProblems(settings, rules);
  if (problems.length === 0) return;
  const first = problems[0] as FieldProblem;
  throw new AppError("validation_error", `${first.field}: ${first.message}`, { fields: problems });
}
