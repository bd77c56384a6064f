// The dashboard's sections, in the order of the typical workflow. A section shows in the navigation
// only to a user whose role carries its permission.
import type { Permission } from "#services/permissions.ts";

export interface Section {
  href: string;
  label: string;
  permission: Permission;
}

export const sections: Section[] = [
  { href: "/pools", label: "Pools", permission: "pools:read" },
  { href: "/models", label: "Models", permission: "models:read" },
  { href: "/deployments", label: "Deployments", permission: "deployments:read" },
  { href: "/playground", label: "Playground", permission: "deployments:read" },
  { href: "/api-keys", label: "API keys", permission: "api_keys:read" },
  { href: "/knowledge-base", label: "Knowledge base", permission: "knowledge_base:read" },
  { href: "/prompts", label: "Prompt templates", permission: "prompts:read" },
  { href: "/providers", label: "Providers", permission: "providers:read" },
  { href: "/users", label: "Users and roles", permission: "users:read" },
  { href: "/sso", label: "Single sign-on", permission: "sso:read" },
  { href: "/logs", label: "Inference logs", permission: "logs:read" },
  { href: "/audit", label: "Audit log", permission: "audit:read" },
];

/** The section a path belongs to, to mark it current in the navigation. */
export const sectionOf = (path: string): Section | undefined =>
  sections.find((s) => path === s.href || path.startsWith(`${s.href}/`) || path.startsWith(`${s.href}?`));
