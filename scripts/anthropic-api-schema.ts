// Pins Anthropic's published Messages API shapes for tests/inference/anthropic-conformance: the
// @anthropic-ai/sdk package's types are generated from Anthropic's API specification, so a JSON Schema
// derived from its `Message`, `RawMessageStreamEvent`, `MessageTokensCount`, `ErrorResponse` and `MessageCreateParams` types
// is the published contract, read without the network. Run once per SDK upgrade:
//   bun scripts/anthropic-api-schema.ts
// and commit tests/inference/anthropic/anthropic-api.schema.json (it names the SDK version it came from).

import { createGenerator } from "ts-json-schema-generator";

// The SDK's package.json is not among its exports: read from where the package is installed.
const sdkPackage: { version: string } = await Bun.file(
  new URL("./node_modules/@anthropic-ai/sdk/package.json", import.meta.url),
).json();
const out = new URL("../tests/inference/anthropic/anthropic-api.schema.json", import.meta.url);
const entry = new URL("../tests/inference/anthropic/sdk-types.ts", import.meta.url).pathname;

const generator = createGenerator({
  path: entry,
  tsconfig: new URL("../tsconfig.json", import.meta.url).pathname,
  type: "*",
  expose: "all",
  skipTypeCheck: true,
  additionalProperties: true,
  jsDoc: "none",
});
const definitions = generator.createSchema("*").definitions ?? {};
const wanted = [
  "PinnedMessage",
  "PinnedRawMessageStreamEvent",
  "PinnedMessageTokensCount",
  "PinnedErrorResponse",
  "PinnedMessageCreateParams",
];
for (const name of wanted) {
  if (!definitions[name]) throw new Error(`the SDK's types lost ${name}`);
}
const schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $comment: `Derived from @anthropic-ai/sdk ${sdkPackage.version} by scripts/anthropic-api-schema.ts`,
  sdkVersion: sdkPackage.version,
  definitions,
};
await Bun.write(out, `${JSON.stringify(schema, null, 2)}\n`);
// Written as the repository's formatter writes JSON, so a rerun with the same SDK changes nothing.
Bun.spawnSync(["bunx", "biome", "format", "--write", out.pathname], { stdout: "ignore", stderr: "inherit" });
console.log(
  `${out.pathname}: ${Object.keys(definitions).length} definitions from @anthropic-ai/sdk ${sdkPackage.version}`,
);
