// POST /internal/guardrails/scan: one text, or a conversation, checked against a guardrails policy:
// the one given in the call, or else the deployment's own (its effective `guardrails` policy). No
// policy, nothing on: allowed. Findings carry offsets (and the message index), never matched text.

import type { ChatMessage } from "#contracts/openai/chat.ts";
import { invalid } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { liveDeploymentOrg } from "../orchestration/live-deployment.ts";
import { effectivePolicies } from "../policies/effective.ts";
import type { Decision } from "./evaluate.ts";
import { isDataMessage, textOf } from "./message-text.ts";
import { evaluateOffLoop } from "./off-loop.ts";
import type { GuardrailsPolicy, Stage } from "./policy.ts";
import type { Finding } from "./scanner.ts";

export interface ScanRequest {
  text?: string | undefined;
  messages?: ChatMessage[] | undefined;
  direction: Stage;
  deployment_id?: string | undefined;
  /** Whose deployment it must be, when the caller knows. */
  org_id?: string | undefined;
  config?: GuardrailsPolicy | undefined;
}

export interface ScanResult {
  allowed: boolean;
  action: Decision;
  findings: (Finding & { message?: number })[];
  /** With `action: "redact"`: the text, or the messages, with the findings masked. */
  redacted?: string | ChatMessage[];
  /** The scanners that blocked it (names only). */
  blocked_by?: string[];
}

const strength: Record<Decision, number> = { allow: 0, log: 1, redact: 2, block: 3 };

async function policyFor(db: Executor, request: ScanRequest): Promise<GuardrailsPolicy | undefined> {
  if (request.config) return request.config;
  if (request.deployment_id === undefined) return undefined;
  const deployment = await liveDeploymentOrg(db, request.deployment_id, request.org_id);
  return (await effectivePolicies(db, deployment.orgId, deployment.id)).guardrails;
}

export async function scanContent(ctx: { db: Executor }, request: ScanRequest): Promise<ScanResult> {
  if ((request.text === undefined) === (request.messages === undefined)) {
    throw invalid("text", "give either text or messages");
  }
  const policy = (await policyFor(ctx.db, request)) ?? {};
  if (request.messages === undefined) {
    const result = await evaluateOffLoop(request.text ?? "", policy, request.direction);
    return {
      allowed: result.allowed,
      action: result.action,
      findings: result.findings,
      ...(result.redacted !== undefined ? { redacted: result.redacted } : {}),
      ...(result.blockedBy ? { blocked_by: result.blockedBy } : {}),
    };
  }
  const findings: ScanResult["findings"] = [];
  const blockedBy = new Set<string>();
  // On input, what the assistant said earlier is the model's, not the caller's: it is not scanned.
  const results = await Promise.all(
    request.messages.map((message) =>
      request.direction === "input" && message.role === "assistant"
        ? undefined
        : evaluateOffLoop(
            textOf(message),
            policy,
            request.direction === "input" && isDataMessage(message) ? "data" : request.direction,
          ),
    ),
  );
  const redacted = request.messages.map((message, index) => {
    const result = results[index];
    if (result === undefined) return message;
    for (const f of result.findings) findings.push({ ...f, message: index });
    for (const s of result.blockedBy ?? []) blockedBy.add(s);
    return result.redacted !== undefined ? { ...message, content: result.redacted } : message;
  });
  let action: Decision = "allow";
  for (const result of results)
    if (result && strength[result.action] > strength[action]) action = result.action;
  return {
    allowed: action !== "block",
    action,
    findings,
    ...(action === "redact" ? { redacted } : {}),
    ...(blockedBy.size > 0 ? { blocked_by: [...blockedBy] } : {}),
  };
}
