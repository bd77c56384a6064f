// The providers page's field lists, without a browser: each provider's guide link names a heading that
// docs/providers.md has, and a posted form becomes the settings and credentials the service takes.
import { describe, expect, test } from "bun:test";
import { providerIds } from "#core/domain.ts";
import { anchorsOf, readDoc } from "#routes/dashboard/docs/_render.ts";
import { formInput, providerForms } from "#routes/dashboard/providers/_forms.ts";
import { distinctLabels } from "#services/usage/overview.ts";

describe("provider forms", () => {
  test("every provider has a form whose guide anchor is a heading of docs/providers.md", () => {
    const anchors = anchorsOf(readDoc("providers.md"));
    for (const id of providerIds) {
      const form = providerForms[id];
      expect({ id, form: form !== undefined }).toEqual({ id, form: true });
      expect({ id, anchor: anchors.includes(form?.docs ?? "") }).toEqual({ id, anchor: true });
    }
  });

  test("a posted form: typed settings, blanks back to defaults, settings it does not show kept", () => {
    const akash = providerForms.akash;
    if (!akash) throw new Error("no akash form");
    const stored = { deposit_usd: 5, bid_wait_s: 60, custom: "kept" };
    const posted = formInput(
      akash,
      {
        setting_deposit_usd: "7.5",
        setting_bid_wait_s: "",
        credential_api_key: " key-1 ",
        setting_base_url: "",
      },
      stored,
    );
    expect(posted).toEqual({
      ok: true,
      input: { settings: { deposit_usd: 7.5, custom: "kept" }, credentials: { api_key: "key-1" } },
    });
    // Blank credentials keep the stored ones: none is sent.
    expect(formInput(akash, { credential_api_key: "" }, {})).toEqual({ ok: true, input: { settings: {} } });
    expect(formInput(akash, { setting_deposit_usd: "five", setting_base_url: "ftp://x" }, {})).toEqual({
      ok: false,
      errors: {
        setting_deposit_usd: "must be a number, 0 or more",
        setting_base_url: "must be an http(s) URL",
      },
    });
    const kubernetes = providerForms.kubernetes;
    if (!kubernetes) throw new Error("no kubernetes form");
    expect(
      formInput(kubernetes, { setting_endpoint_mode: "sideways", setting_gpu_prices_per_hour: "[1]" }, {}),
    ).toMatchObject({
      ok: false,
      errors: { setting_endpoint_mode: expect.any(String), setting_gpu_prices_per_hour: expect.any(String) },
    });
    expect(formInput(kubernetes, { setting_gpu_prices_per_hour: '{"NVIDIA-L4": 0.8}' }, {})).toEqual({
      ok: true,
      input: { settings: { gpu_prices_per_hour: { "NVIDIA-L4": 0.8 } } },
    });
  });
});

test("overview labels: a label two deployments share gets the start of each id", () => {
  const labels = distinctLabels(
    new Map([
      ["aaaaaaaa-1111-4111-8111-111111111111", "chat (deleted)"],
      ["bbbbbbbb-2222-4222-8222-222222222222", "chat (deleted)"],
      ["cccccccc-3333-4333-8333-333333333333", "chat"],
    ]),
  );
  expect([...labels.values()]).toEqual(["chat (deleted) · aaaaaaaa", "chat (deleted) · bbbbbbbb", "chat"]);
});
