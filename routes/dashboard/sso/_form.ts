// The SSO form's text fields as the API's body: "group = role" lines, "client = role" lines, a comma
// list of e-mails, a checkbox. The service then checks it exactly as PUT /admin/sso does.
import type { PutSsoInput, SsoConfigViewT } from "#services/sso/requests.ts";
import type { FieldErrors, FormValues } from "../_shared/form.ts";

const text = (form: FormValues, name: string): string => {
  const v = form[name];
  return typeof v === "string" ? v.trim() : "";
};

/** "left = right" per line; a line without "=" is reported on its field. */
function pairs(value: string, field: string, errors: FieldErrors): [string, string][] {
  const out: [string, string][] = [];
  for (const line of value.split("\n").map((l) => l.trim())) {
    if (!line) continue;
    const at = line.lastIndexOf("=");
    const left = line.slice(0, at).trim();
    const right = line.slice(at + 1).trim();
    if (at < 0 || !left || !right) errors[field] ??= `Write one "name = role" a line ("${line}" is not).`;
    else out.push([left, right]);
  }
  return out;
}

export function ssoInputOf(form: FormValues): { input?: PutSsoInput; errors?: FieldErrors } {
  const errors: FieldErrors = {};
  for (const required of ["display_name", "issuer_url", "client_id"])
    if (!text(form, required)) errors[required] = "Required.";
  const groupRoles = pairs(text(form, "group_roles"), "group_roles", errors);
  const accounts = pairs(text(form, "service_accounts"), "service_accounts", errors);
  if (Object.keys(errors).length > 0) return { errors };
  const secret = text(form, "client_secret");
  const audience = text(form, "service_audience");
  return {
    input: {
      display_name: text(form, "display_name"),
      issuer_url: text(form, "issuer_url"),
      client_id: text(form, "client_id"),
      ...(secret ? { client_secret: secret } : {}),
      groups_claim: text(form, "groups_claim") || "groups",
      default_role: text(form, "default_role") || "viewer",
      group_roles: groupRoles.map(([group, role]) => ({ group, role })),
      service_accounts: accounts.map(([client_id, role]) => ({ client_id, role })),
      service_audience: audience || null,
      password_login_disabled: form.password_login_disabled === "on",
      break_glass_emails: text(form, "break_glass_emails")
        .split(/[\s,]+/)
        .filter(Boolean),
    },
  };
}

/** The stored configuration as the form's values. */
export function formValuesOf(config: SsoConfigViewT | undefined): FormValues {
  if (!config) return { groups_claim: "groups", default_role: "viewer" };
  return {
    display_name: config.display_name,
    issuer_url: config.issuer_url,
    client_id: config.client_id,
    groups_claim: config.groups_claim,
    default_role: config.default_role,
    group_roles: config.group_roles.map((g) => `${g.group} = ${g.role}`).join("\n"),
    service_accounts: config.service_accounts.map((a) => `${a.client_id} = ${a.role}`).join("\n"),
    service_audience: config.service_audience ?? "",
    password_login_disabled: config.password_login_disabled ? "on" : "",
    break_glass_emails: config.break_glass_emails.join(", "),
  };
}
