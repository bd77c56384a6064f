// The held-out PII benchmark's reading of gitleaks' rule files (scripts/build-pii-heldout.ts): the
// values its tests use, not the Go code around them. Read line by line, the builder once labelled
// "+secrets.NewSecret(utils.AlphaNumeric(" and a sample's identifier as API keys.
import { describe, expect, test } from "bun:test";
import { gitleaksPositives } from "../../scripts/build-pii-heldout.ts";

const RULE = `package rules

func Example() *config.Rule {
	tps := utils.GenerateSampleSecrets("AmazonBedrockAPIKeyShortLived", \`bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t\`)
	tps = append(tps,
		// a comment, and a commented-out case:
		// \`eyJhbGciOiJub25lIn0.commented\`,
		"sk-ant-api03-"+secrets.NewSecret(utils.AlphaNumericExtendedShort("5"))+"AA",
		\`"token1": "xapp-1-A052FGTS2DL-5171572773297-610b6a"\`, // gitleaks:allow
		\`<a class="cbtn btn-grad-s"
		href="https://example.com">\`,
		\`"bot": \`+fmt.Sprintf(\`"xoxb-%s-%s"\`, secrets.NewSecret(utils.Numeric("3")), secrets.NewSecret("[A-Z2-7]{4}")),
		utils.GenerateSampleSecret("jwt", secrets.NewSecret(\`ey[a-zA-Z0-9]{17,}\`)),
	)
	fps := []string{"not-a-positive-xxxxxxxxxxxxxxxx"}
	return utils.Validate(r, tps, fps)
}
`;

describe("gitleaks rule files read as the held-out benchmark's api_key / jwt positives", () => {
  const values = gitleaksPositives(RULE, "example");

  test("the secret of a sample call, not its identifier", () => {
    expect(values[0]).toBe("bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t");
    expect(values).not.toContain("AmazonBedrockAPIKeyShortLived");
  });

  test("generated parts generated from gitleaks' class definitions; literals whole, across lines", () => {
    expect(values[1]).toMatch(/^sk-ant-api03-[a-z0-9_-]{5}AA$/);
    expect(values[2]).toBe('"token1": "xapp-1-A052FGTS2DL-5171572773297-610b6a"');
    expect(values[3]).toBe('<a class="cbtn btn-grad-s"\n\t\thref="https://example.com">');
    expect(values[4]).toMatch(/^"bot": "xoxb-\d{3}-[A-Z2-7]{4}"$/);
  });

  test("a pattern with an open count cannot be generated; comments and fps are not read", () => {
    expect(values).toHaveLength(6);
    expect(values[5]).toBeUndefined();
    expect(values.join(" ")).not.toContain("commented");
    expect(values).not.toContain("not-a-positive-xxxxxxxxxxxxxxxx");
  });

  test("the same file gives the same values (the benchmark is rebuilt byte for byte)", () => {
    expect(gitleaksPositives(RULE, "example")).toEqual(values);
  });
});
