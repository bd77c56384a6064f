// Form fields that show their problem beside them and keep what the user typed. Every page's forms
// are made of these, so errors look and behave the same everywhere (aria-invalid, described-by).
import type { Children } from "@kitajs/html";
import type { FieldErrors, FormValues } from "../form.ts";

export interface FormState {
  errors?: FieldErrors | undefined;
  values?: FormValues | undefined;
}

interface Common extends FormState {
  name: string;
  label: string;
  hint?: string | undefined;
  required?: boolean | undefined;
  /** Tells apart the same field in several forms of one page (ids must be unique). */
  form?: string | undefined;
}

const idOf = (name: string, form?: string) => (form ? `f-${form}-${name}` : `f-${name}`);
const textOf = (state: FormState, name: string): string => {
  const v = state.values?.[name];
  return typeof v === "string" || typeof v === "number" ? String(v) : "";
};

function Wrap({ name, label, hint, errors, children, form }: Common & { children: Children }) {
  const error = errors?.[name];
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={idOf(name, form)} safe>
        {label}
      </label>
      {children}
      {hint ? (
        <p class="hint" id={`${idOf(name, form)}-hint`} safe>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${idOf(name, form)}-error`} role="alert" safe>
          {error}
        </p>
      ) : null}
    </div>
  );
}

const describedBy = (p: Common) =>
  [p.hint ? `${idOf(p.name, p.form)}-hint` : "", p.errors?.[p.name] ? `${idOf(p.name, p.form)}-error` : ""]
    .filter(Boolean)
    .join(" ") || undefined;

export function Field(
  props: Common & {
    type?: string;
    placeholder?: string;
    autofocus?: boolean;
    autocomplete?: string;
    inputmode?: string;
    pattern?: string;
    min?: number;
    max?: number;
    /** Extra attributes (htmx) for the input. */
    attrs?: Record<string, string>;
  },
) {
  return (
    <Wrap {...props}>
      <input
        id={idOf(props.name, props.form)}
        name={props.name}
        type={props.type ?? "text"}
        value={props.type === "password" ? "" : textOf(props, props.name)}
        required={props.required}
        placeholder={props.placeholder}
        autofocus={props.autofocus}
        autocomplete={props.autocomplete}
        inputmode={props.inputmode}
        pattern={props.pattern}
        min={props.min}
        max={props.max}
        aria-invalid={props.errors?.[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
        {...props.attrs}
      />
    </Wrap>
  );
}

export function TextArea(props: Common & { rows?: number; placeholder?: string }) {
  return (
    <Wrap {...props}>
      <textarea
        id={idOf(props.name, props.form)}
        name={props.name}
        rows={String(props.rows ?? 4)}
        required={props.required}
        placeholder={props.placeholder}
        aria-invalid={props.errors?.[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
        safe
      >
        {textOf(props, props.name)}
      </textarea>
    </Wrap>
  );
}

export interface Choice {
  value: string;
  label: string;
}

export function Select(
  props: Common & { choices: Choice[]; blank?: string; attrs?: Record<string, string> },
) {
  const current = textOf(props, props.name);
  return (
    <Wrap {...props}>
      <select
        id={idOf(props.name, props.form)}
        name={props.name}
        required={props.required}
        aria-invalid={props.errors?.[props.name] ? "true" : undefined}
        aria-describedby={describedBy(props)}
        {...props.attrs}
      >
        {props.blank !== undefined ? (
          <option value="" safe>
            {props.blank}
          </option>
        ) : null}
        {props.choices.map((c) => (
          <option value={c.value} selected={c.value === current} safe>
            {c.label}
          </option>
        ))}
      </select>
    </Wrap>
  );
}

/** Several checkboxes under one name (posted as an array). */
export function Checkboxes(props: Common & { choices: Choice[] }) {
  const raw = props.values?.[props.name];
  const checked = new Set(Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? [raw] : []);
  const error = props.errors?.[props.name];
  return (
    <fieldset class={error ? "field invalid" : "field"}>
      <legend safe>{props.label}</legend>
      <div class="checks">
        {props.choices.map((c) => (
          <label class="check">
            <input type="checkbox" name={props.name} value={c.value} checked={checked.has(c.value)} />
            <span safe>{c.label}</span>
          </label>
        ))}
      </div>
      {props.hint ? (
        <p class="hint" safe>
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" role="alert" safe>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** A problem of the whole form (a taken name, a state that forbids it), above its fields. */
export function FormProblem({ errors }: { errors?: FieldErrors | undefined }) {
  const message = errors?._form;
  if (!message && !errors) return "";
  const fieldCount = Object.keys(errors ?? {}).filter((k) => k !== "_form").length;
  return (
    <div class="error" role="alert">
      {message ? <p safe>{message}</p> : null}
      {fieldCount > 0 ? <p>Nothing was saved: correct the fields marked below.</p> : null}
    </div>
  );
}

/** A message the page must say first (a sign-in refused, a filter refused), announced to screen readers. */
export function Alert({ message }: { message?: string | undefined }) {
  if (!message) return "";
  return (
    <p class="error" role="alert" safe>
      {message}
    </p>
  );
}

/** A list's filters: a GET form of the fields given and its Filter button. */
export function FilterForm({
  action,
  label,
  children,
}: {
  action: string;
  label: string;
  children: Children;
}) {
  return (
    <form method="get" action={action} class="filters" aria-label={label}>
      {children}
      <button type="submit" class="secondary">
        Filter
      </button>
    </form>
  );
}

/** A card holding one form that changes something: its title, the CSRF token, the form's problem. */
export function FormCard(props: {
  title: string;
  action: string;
  csrf: string;
  errors?: FieldErrors | undefined;
  children: Children;
}) {
  return (
    <section class="card">
      <h2 safe>{props.title}</h2>
      <form method="post" action={props.action}>
        <Csrf token={props.csrf} />
        <FormProblem errors={props.errors} />
        {props.children}
      </form>
    </section>
  );
}
