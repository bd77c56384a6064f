import { type Detector, type PiiType, piiFinding } from "./types.ts";

// Credentials with a recognisable shape, after the providers' published formats. Order matters
// only for readability: overlaps are resolved by the scanner (the longest wins).
// Each pattern with a literal every match contains (AWS's eleven prefixes have none in common): the
// pattern runs only when the literal occurs, and indexOf is far cheaper than a scan of the pattern.
const API_KEYS: readonly [literal: string, pattern: RegExp][] = [
  // Anthropic: sk-ant-api03-... / sk-ant-admin01-...
  ["sk-", /(?<![\w-])sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{20,}/g],
  // OpenAI (legacy sk-, project sk-proj-, service account sk-svcacct-, admin sk-admin-) and any
  // OpenAI-compatible key of the same form, including this platform's own.
  ["sk-", /(?<![\w-])sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g],
  // AWS access key ids (long-term AKIA, temporary ASIA, and the other documented prefixes).
  [
    "",
    /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z2-7]{16}(?![A-Za-z0-9])/g,
  ],
  // GitHub: classic tokens (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained PATs.
  ["gh", /(?<![\w])gh[pousr]_[A-Za-z0-9]{36,251}(?![\w])/g],
  ["github_pat_", /(?<![\w])github_pat_[A-Za-z0-9_]{50,255}(?![\w])/g],
  // Slack bot/user/app/refresh/legacy tokens.
  ["xox", /(?<![\w-])xox[a-z]-[A-Za-z0-9-]{10,250}(?![\w-])/g],
  // Slack configuration access tokens, xoxe.xoxb-1-... / xoxe.xoxp-1-... (gitleaks'
  // slack-config-access-token: 163-166 characters after the version digit).
  ["xoxe.", /(?<![\w-])xoxe\.xox[bp]-\d-[A-Za-z0-9]{150,180}(?![\w-])/g],
  // Slack app-level tokens, xapp-<version>-<app id>-<number>-<hex> (gitleaks' slack-app-token).
  ["xapp-", /(?<![\w-])xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+(?![\w-])/g],
  // Slack incoming-webhook and workflow URLs: the path after hooks.slack.com is the credential
  // (gitleaks' slack-webhook-url: 43-56 characters; workflow URLs of four parts run longer).
  [
    "hooks.slack.com/",
    /(?:https?:\/\/)?hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/]{43,120}(?![\w+/])/g,
  ],
  // Google API keys.
  ["AIza", /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g],
  // Stripe secret and restricted keys, live and test.
  ["k_", /(?<![\w])[sr]k_(?:live|test|prod)_[A-Za-z0-9]{16,247}(?![\w])/g],
  // AWS's older A3T prefix (A3T + one character, then 16), as secret scanners list it.
  ["A3T", /(?<![A-Za-z0-9])A3T[A-Z0-9][A-Z2-7]{16}(?![A-Za-z0-9])/g],
  // GitLab: personal, pipeline-trigger, runner, deploy, CI-build, incoming-mail, agent, OAuth-app,
  // SCIM, feed and feature-flag tokens by their documented prefixes, and runner registration tokens.
  // Lengths after GitLab's token formats (fixed for some kinds).
  ["gl", /(?<![\w-])(?:glpat|gldt|glft|glffct|glsoat|glrt|glcbt)-[A-Za-z0-9_-]{20,50}(?![\w-])/g],
  // A GitLab session cookie's value (gitleaks' gitlab-session-cookie).
  ["_gitlab_session=", /_gitlab_session=[0-9a-z]{32}(?![0-9a-z])/g],
  [
    "gl",
    /(?<![\w-])(?:glimt-[A-Za-z0-9_-]{25}|glptt-[A-Za-z0-9_-]{40}|gloas-[A-Za-z0-9_-]{64}|glagent-[A-Za-z0-9_-]{50,1024})(?![\w-])/g,
  ],
  ["GR1348941", /(?<![\w])GR1348941[A-Za-z0-9_-]{20,50}(?![\w-])/g],
  // SendGrid: SG.<22>.<43> as SendGrid issues them; gitleaks' sendgrid-api-token reads any 66
  // characters of letters, digits and "=_-." after "SG." (keys re-encoded or cut differently).
  ["SG.", /(?<![\w.])SG\.(?:[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}|[A-Za-z0-9=_.-]{66})(?![\w=.-])/g],
  // Amazon Bedrock API keys: long-lived "ABSK" + base64 of "BedrockAPIKey-..." (gitleaks'
  // aws-amazon-bedrock-api-key-long-lived, 109-269 characters), and short-lived ones, whose fixed
  // part is base64 of "bedrock.amazonaws.com" followed by the presigned query.
  ["ABSK", /(?<![A-Za-z0-9+/])ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{90,250}={0,2}(?![A-Za-z0-9+/=])/g],
  ["bedrock-api-key-", /(?<![\w-])bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&._-]*/g],
  // PyPI upload tokens (a macaroon whose first bytes say "pypi.org") and npm access tokens.
  ["pypi-AgE", /(?<![\w-])pypi-AgE[A-Za-z0-9_-]{50,}(?![\w-])/g],
  ["npm_", /(?<![\w])npm_[A-Za-z0-9]{36}(?![\w])/g],
  // Hugging Face user access tokens.
  ["hf_", /(?<![\w])hf_[A-Za-z]{34}(?![\w])/g],
];

// A PEM private key block of any algorithm (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP's "PRIVATE KEY
// BLOCK"). Without its END line (truncated, or still streaming) the block runs to the end of the text.
const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----/g;

// header.payload.signature, each base64url; header and payload are JSON objects, so both start with
// "eyJ" ('{"'). The header is decoded below to be sure it is a JOSE header.
// The signature may be missing: an unsecured token ("alg": "none") ends at the payload, with or
// without its final dot.
const JWT = /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]{0,1024})?(?![\w-])/g;

function joseHeader(b64url: string): boolean {
  try {
    const json = atob(
      b64url.replace(/-/g, "+").replace(/_/g, "/") + "==".slice(0, (4 - (b64url.length % 4)) % 4),
    );
    const header: unknown = JSON.parse(json);
    return typeof header === "object" && header !== null && "alg" in header;
  } catch {
    return false;
  }
}

function push(out: Parameters<Detector>[1], type: PiiType, score: number, start: number, end: number): void {
  out.push(piiFinding(type, score, start, end));
}

export const detectSecrets: Detector = (text, out) => {
  for (const [literal, re] of API_KEYS) {
    if (text.indexOf(literal) < 0) continue;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text))
      push(out, "api_key", 0.95, m.index, m.index + m[0].length);
  }
  if (text.indexOf("-----BEGIN ") >= 0) {
    PEM_BEGIN.lastIndex = 0;
    for (let m = PEM_BEGIN.exec(text); m !== null; m = PEM_BEGIN.exec(text)) {
      const endLine = `-----END ${m[1]}-----`;
      const at = text.indexOf(endLine, m.index + m[0].length);
      const end = at < 0 ? text.length : at + endLine.length;
      push(out, "private_key", 1, m.index, end);
      PEM_BEGIN.lastIndex = end;
    }
  }
  if (text.indexOf("eyJ") >= 0) {
    JWT.lastIndex = 0;
    for (let m = JWT.exec(text); m !== null; m = JWT.exec(text)) {
      if (joseHeader(m[0].slice(0, m[0].indexOf("."))))
        push(out, "jwt", 0.95, m.index, m.index + m[0].length);
    }
  }
};
