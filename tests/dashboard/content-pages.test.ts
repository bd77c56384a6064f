// The knowledge base, prompt templates, inference logs and the audit log in Chromium: several files
// uploaded at once, a bad upload stores nothing, names with <script> stay text; a template edited into
// a second version with a preview of its messages; the audit log filtered, and refused to a viewer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import { adminEmail, adminPassword, fetchJson } from "../support/app.ts";
import { type BrowserPlatform, haveChromium, newPage, shot, signIn, startSignedIn } from "./browser.ts";

let bp: BrowserPlatform;
let page: Page;
const dialogs: string[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  ({ bp, page } = await startSignedIn({ dialogs }));
}, 90_000);
afterAll(async () => {
  await bp?.close();
});

const file = (name: string, mimeType: string, text: string) => ({
  name,
  mimeType,
  buffer: Buffer.from(text),
});

test.skipIf(!haveChromium)(
  "knowledge base: two files uploaded at once, a bad upload refused whole, a <script> name as text, delete after confirming",
  async () => {
    await page.goto("/knowledge-base");
    expect(await page.getByText("No collections yet").count()).toBe(1);
    await page.getByLabel("Name").fill("handbook");
    await page.getByRole("button", { name: "Create collection" }).click();
    await page.waitForURL(/\/knowledge-base\/[0-9a-f-]{36}$/);
    const nasty = "<script>alert(1)</script>.txt";
    await page
      .getByLabel("Files")
      .setInputFiles([
        file("leave.md", "text/markdown", "# Leave\nSixteen weeks of parental leave."),
        file(nasty, "text/plain", "Laptops are returned to the IT desk."),
      ]);
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByText("Stored 2 documents.").waitFor();
    expect(await page.locator("tbody tr").count()).toBe(2);
    expect(await page.locator("tbody").textContent()).toContain(nasty);
    expect(await page.content()).toContain("&lt;script&gt;alert(1)&lt;/script&gt;.txt");
    expect(dialogs).toEqual([]);
    await shot(page, "knowledge-base-collection");

    await page
      .getByLabel("Files")
      .setInputFiles([
        file("fine.md", "text/markdown", "# Fine\nA good document."),
        file("picture.png", "image/png", "\u0089PNG"),
        file("empty.txt", "text/plain", ""),
      ]);
    await page.getByRole("button", { name: "Upload" }).click();
    const error = (await page.locator("#f-files-error").textContent()) ?? "";
    expect(error).toContain("Nothing was stored");
    expect(error).toContain("picture.png is not text, Markdown, HTML or PDF");
    expect(error).toContain("empty.txt is empty");
    expect(await page.locator("tbody tr").count()).toBe(2);
    expect(await page.getByText("fine.md").count()).toBe(0);
    await shot(page, "knowledge-base-upload-refused");

    await page.locator("tr", { hasText: "leave.md" }).getByRole("button", { name: "Delete" }).click();
    expect(dialogs.at(-1)).toContain("Delete leave.md");
    await page.waitForURL(/\/knowledge-base\/[0-9a-f-]{36}$/);
    expect(await page.locator("tbody tr").count()).toBe(1);
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "prompt templates: a bad template refused, a <script> name as text, a second version, the preview's messages",
  async () => {
    await page.goto("/prompts");
    await page.getByLabel("Name").fill("<script>alert(2)</script> support");
    await page.getByLabel("User template (optional)").fill("no placeholder here");
    await page.getByRole("button", { name: "Create template" }).click();
    expect(await page.locator("#f-user_template-error").textContent()).toContain("{{input}}");
    await page.getByLabel("System prompt (optional)").fill("You are the support desk.");
    await page.getByLabel("User template (optional)").fill("Context:\n{{context}}\n\nQuestion: {{input}}");
    await page.getByRole("button", { name: "Preview" }).click();
    await page.locator("#template-preview .turn").nth(1).waitFor();
    const preview = (await page.locator("#template-preview").textContent()) ?? "";
    expect(preview).toContain("You are the support desk.");
    expect(preview).toContain("Question: How many weeks of parental leave do we get?");
    expect(preview).toContain("[1] (handbook.md)");
    await shot(page, "prompts-preview");
    await page.getByRole("button", { name: "Create template" }).click();
    await page.waitForURL(/\/prompts\/[0-9a-f-]{36}$/);
    expect(await page.content()).toContain("&lt;script&gt;alert(2)&lt;/script&gt; support");
    await page.getByLabel("System prompt (optional)").fill("You are the support desk, version two.");
    await page.getByRole("button", { name: "Save new version" }).click();
    await page.waitForURL(/\/prompts\/[0-9a-f-]{36}$/);
    const versions = page.locator("table tbody tr");
    expect(await versions.count()).toBe(2);
    expect(await versions.first().textContent()).toContain("version two");
    expect(dialogs.filter((d) => d === "2")).toEqual([]);
    await shot(page, "prompt-versions");
  },
  60_000,
);

test.skipIf(!haveChromium)(
  "inference logs and the audit log: the audit log filters by action, and a viewer gets neither its link nor the page",
  async () => {
    await page.goto("/logs");
    expect(await page.getByText("No inference requests here yet").count()).toBe(1);
    await shot(page, "inference-logs-empty");

    await page.goto("/audit");
    const actions = await page.locator("tbody td.mono:nth-child(3)").allTextContents();
    expect(actions).toContain("knowledge_collection.create");
    expect(actions).toContain("prompt_template.update");
    await page.getByLabel("Action").fill("prompt_template.*");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL("**/audit?**");
    const filtered = await page.locator("tbody td.mono:nth-child(3)").allTextContents();
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((a) => a.startsWith("prompt_template."))).toBe(true);
    await shot(page, "audit-filtered");

    const login = (
      await fetchJson<typeof loginRoute>(`${bp.filtrationUrl}/auth/login`, {
        body: { email: adminEmail, password: adminPassword },
      })
    ).body;
    const added = await fetch(`${bp.filtrationUrl}/admin/users`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${login.access_token}` },
      body: JSON.stringify({
        email: "watcher@example.com",
        password: "a watcher's long password",
        role: "viewer",
      }),
    });
    expect(added.status).toBe(201);
    const viewer = (await newPage(bp)).page;
    await signIn(viewer, "watcher@example.com", "a watcher's long password");
    expect(await viewer.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    expect(await viewer.getByRole("link", { name: "Inference logs" }).count()).toBe(1);
    const res = await viewer.goto("/audit");
    expect(res?.status()).toBe(403);
    expect(await viewer.getByRole("heading", { name: "You do not have permission for this" }).count()).toBe(
      1,
    );
    await shot(viewer, "audit-refused-to-viewer");
  },
  60_000,
);
