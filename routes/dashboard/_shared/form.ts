// Dashboard forms: the values a browser posted, checked against the same TypeBox schema the API route
// validates with, and every problem turned into a message beside its field. A form with problems is
// answered with the page again (status 422), the values kept, and nothing created.
import type { Static, TSchema } from "@sinclair/typebox";
import { Value, type ValueError } from "@sinclair/typebox/value";
import { AppError } from "#core/errors.ts";

/** Messages by field name; `_form` holds a problem that belongs to no one field. */
export type FieldErrors = Record<string, string>;
/** What the browser posted: strings, repeated names as arrays, files. */
export type FormValues = Record<string, unknown>;

export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors };

/** Empty fields are absent (an optional field left blank), not empty strings. */
function withoutBlanks(form: FormValues): FormValues {
  const out: FormValues = {};
  for (const [key, value] of Object.entries(form ?? {})) {
    if (key === "_csrf") continue;
    if (typeof value === "string" && value.trim() === "") continue;
    out[key] = typeof value === "string" ? value.trim() : value;
  }
  return out;
}

/** A union's schema (TypeBox's and Elysia's unions alike carry their members in `anyOf`). */
const hasMembers = (schema: TSchema): schema is TSchema & { anyOf: TSchema[] } => Array.isArray(schema.anyOf);

/** Of a union (a nullable number, say), the member a value of this kind would have to satisfy. */
function memberFor(schema: TSchema, value: unknown): TSchema {
  if (!hasMembers(schema)) return schema;
  const kind = typeof value === "number" ? ["number", "integer"] : [typeof value];
  const member = schema.anyOf.find((m) => kind.includes(String(m.type)));
  return member ?? schema;
}

function messageOf(error: ValueError): string {
  const schema = memberFor(error.schema, error.value);
  if (error.value === undefined) return "Required.";
  if (typeof schema.errorMessage === "string") return schema.errorMessage;
  if (
    schema.minLength !== undefined &&
    typeof error.value === "string" &&
    error.value.length < Number(schema.minLength)
  )
    return `At least ${schema.minLength} characters.`;
  if (schema.maxLength !== undefined && typeof error.value === "string")
    return `At most ${schema.maxLength} characters.`;
  if (schema.minimum !== undefined && typeof error.value === "number" && error.value < Number(schema.minimum))
    return `At least ${schema.minimum}.`;
  if (schema.maximum !== undefined && typeof error.value === "number") return `At most ${schema.maximum}.`;
  if (schema.type === "integer" || schema.type === "number") return "A number is needed.";
  if (schema.pattern !== undefined) return "Not in the expected format.";
  if (schema.format === "uuid") return "Pick one from the list.";
  if (schema.format === "date-time") return "A date and time is needed.";
  if (Array.isArray(schema.anyOf)) return "Pick one of the offered values.";
  return error.message;
}

/** An object's schema: its fields' schemas by name. */
const hasProperties = (schema: TSchema): schema is TSchema & { properties: { [name: string]: TSchema } } =>
  typeof schema.properties === "object" && schema.properties !== null;

/**
 * Numeric text where the schema wants a number, also inside a union (a nullable number), which
 * TypeBox's Convert leaves as text.
 */
function numbersIn(schema: TSchema, values: FormValues): FormValues {
  const properties = hasProperties(schema) ? schema.properties : {};
  const out = { ...values };
  for (const [name, property] of Object.entries(properties)) {
    const value = out[name];
    if (typeof value !== "string" || value.trim() === "" || !Number.isFinite(Number(value))) continue;
    const members = hasMembers(property) ? property.anyOf : [property];
    if (members.some((m) => m.type === "number" || m.type === "integer")) out[name] = Number(value);
  }
  return out;
}

const fieldOf = (path: string): string => path.split("/").filter(Boolean)[0] ?? "_form";

/**
 * Checks posted values against `schema` (the API's own), converting strings to the numbers and
 * booleans it asks for. `arrays` names fields that may arrive as one value or several.
 */
export function parseForm<S extends TSchema>(
  schema: S,
  form: FormValues,
  options: { arrays?: string[] } = {},
): FormResult<Static<S>> {
  const values = withoutBlanks(form);
  for (const name of options.arrays ?? []) {
    const v = values[name];
    if (v !== undefined && !Array.isArray(v)) values[name] = [v];
  }
  const converted = Value.Convert(schema, numbersIn(schema, values));
  if (Value.Check(schema, converted)) return { ok: true, value: converted };
  const errors: FieldErrors = {};
  for (const error of Value.Errors(schema, converted)) {
    const field = fieldOf(error.path);
    errors[field] ??= messageOf(error);
  }
  return { ok: false, errors };
}

const formCodes = new Set(["validation_error", "already_exists", "failed_precondition", "payload_too_large"]);

/**
 * The field messages of a service's refusal (validation or a taken name), or undefined when the
 * error is not about the form (the caller rethrows it and the gateway answers as usual).
 */
export function formErrorsOf(error: unknown): FieldErrors | undefined {
  if (!(error instanceof AppError)) return undefined;
  if (!formCodes.has(error.code)) return undefined;
  const fields = error.details?.fields;
  if (fields && fields.length > 0) return Object.fromEntries(fields.map((f) => [f.field, f.message]));
  return { _form: error.message };
}

/** The form checked against `schema`, then given to `action`: its result, or the field messages of either step. */
export async function submitForm<S extends TSchema, T>(
  schema: S,
  form: FormValues,
  action: (value: Static<S>) => Promise<T>,
  options: { arrays?: string[] } = {},
): Promise<FormResult<T>> {
  const parsed = parseForm(schema, form, options);
  return parsed.ok ? attempt(() => action(parsed.value)) : parsed;
}

/** Runs `action`; a refusal about the form becomes its field messages, anything else is rethrown. */
export async function attempt<T>(action: () => Promise<T>): Promise<FormResult<T>> {
  try {
    return { ok: true, value: await action() };
  } catch (error) {
    const errors = formErrorsOf(error);
    if (!errors) throw error;
    return { ok: false, errors };
  }
}
