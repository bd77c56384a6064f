// Every permission of the platform, as `resource:action`. Routes and gRPC methods declare one of these;
// roles carry a list of them. GET /admin/roles/permissions/list serves this list.

export const permissionCatalog = {
  "deployments:read": "See deployments, their state, replicas and logs",
  "deployments:write": "Create, start, terminate and delete deployments",
  "pools:read": "See compute pools and their node inventory",
  "pools:write": "Create and delete compute pools",
  "models:read": "See the model registry",
  "models:write": "Register and delete model versions",
  "api_keys:read": "See API keys (never their secret value)",
  "api_keys:write": "Create and revoke API keys",
  "knowledge_base:read": "See knowledge-base collections and documents",
  "knowledge_base:write": "Create collections and upload documents",
  "prompts:read": "See prompt templates",
  "prompts:write": "Create and update prompt templates",
  "policies:read": "See rate-limit, quota, guardrail, retrieval and prompt policies",
  "policies:write": "Change policies",
  "providers:read": "See provider configurations (credentials masked)",
  "providers:write": "Change provider configurations and credentials",
  "logs:read": "See inference logs",
  "users:read": "See the users of the organization and their roles",
  "users:write": "Add and remove users, change their roles",
  "roles:read": "See roles and their permissions",
  "roles:write": "Create, update and delete roles",
  "audit:read": "Read the audit log",
  "sso:read": "See the single sign-on configuration (never its client secret) and SCIM tokens",
  "sso:write": "Configure single sign-on, service accounts and password sign-in; make and revoke SCIM tokens",
} as const;

export type Permission = keyof typeof permissionCatalog;
export const allPermissions: Permission[] = Object.keys(permissionCatalog).filter(isPermission);

export function isPermission(value: string): value is Permission {
  return Object.hasOwn(permissionCatalog, value);
}

/**
 * Who may call an entry point. Every route file and gRPC method declares exactly one.
 * - a Permission: a signed-in user whose role in the active organization carries it
 * - "authenticated": any signed-in user (their own profile, TOTP, organization switch)
 * - "internal": service-to-service calls with X-Internal-API-Key
 * - "node": a worker's heartbeat with its pool's node token (or the internal key)
 * - "scim": an identity provider's SCIM client, with its organization's SCIM token
 * - "public": nobody needs to be known (login, health)
 */
export type Access = Permission | "authenticated" | "internal" | "node" | "scim" | "public";

const developerResources = [
  "deployments",
  "pools",
  "models",
  "api_keys",
  "knowledge_base",
  "prompts",
  "policies",
];

export const builtinRoles = {
  admin: allPermissions,
  developer: allPermissions.filter(
    (p) => developerResources.includes(p.split(":")[0] ?? "") || p === "logs:read",
  ),
  viewer: allPermissions.filter((p) => p.endsWith(":read") && p !== "audit:read"),
} as const satisfies Record<string, readonly Permission[]>;

export type BuiltinRole = keyof typeof builtinRoles;
const isBuiltinRole = (name: string): name is BuiltinRole => Object.hasOwn(builtinRoles, name);
export const builtinRoleNames: BuiltinRole[] = Object.keys(builtinRoles).filter(isBuiltinRole);
