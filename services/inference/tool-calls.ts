// The arguments of the model's tool calls, checked by the output guardrails: the output scanners (PII
// redacted or blocked as in the answer's text) and indirect injection (`output.indirect_injection`):
// arguments are data the next tool or agent reads, so an instruction planted in them is one. In a
// stream the arguments are held back until the choice ends, then checked whole and sent in one piece
// (a JSON object half sent cannot be taken back). Chunks from the Messages and Responses surfaces
// are translated from these, so they are covered too.
import type { ReceivedChunk, ToolCallDelta } from "#contracts/openai/chat.ts";
import { type Evaluation, evaluate } from "../guardrails/evaluate.ts";
import { evaluateOffLoop } from "../guardrails/off-loop.ts";
import type { GuardrailsPolicy } from "../guardrails/policy.ts";
import type { Finding } from "../guardrails/scanner.ts";
import type { StreamResult } from "../guardrails/stream-scan.ts";

interface ToolCall {
  index?: number;
  function?: { name?: string; arguments?: string };
}

function isToolCall(value: unknown): value is ToolCall {
  return typeof value === "object" && value !== null;
}

const rank = (action: string) => ({ allow: 0, log: 1, redact: 2, block: 3 })[action as "allow"] ?? 0;

export interface ToolCallsVerdict {
  action: string;
  findings: Finding[];
  blockedBy?: string;
}

/** Non-streaming: each call's arguments evaluated; in blocking mode redacted in place. */
export async function scanToolCalls(
  calls: unknown,
  policy: GuardrailsPolicy,
  blocking: boolean,
): Promise<ToolCallsVerdict> {
  const verdict: ToolCallsVerdict = { action: "allow", findings: [] };
  if (!Array.isArray(calls)) return verdict;
  for (const call of calls) {
    const fn = isToolCall(call) ? call.function : undefined;
    if (!fn?.arguments) continue;
    const result = await evaluateOffLoop(fn.arguments, policy, "tool_call");
    merge(verdict, result);
    if (blocking && result.action === "redact" && result.redacted !== undefined)
      fn.arguments = result.redacted;
  }
  return verdict;
}

function merge(verdict: ToolCallsVerdict, result: Evaluation): void {
  verdict.findings.push(...result.findings);
  if (rank(result.action) > rank(verdict.action)) verdict.action = result.action;
  if (result.action === "block") verdict.blockedBy ??= result.blockedBy?.[0] ?? "guardrail";
}

type StreamChoice = NonNullable<ReceivedChunk["choices"]>[number];

/** Streaming, blocking mode: holds each choice's tool-call arguments until the choice finishes. */
export class ToolCallHoldback {
  /** Arguments so far, by choice index, then tool-call index. */
  readonly #held = new Map<number, Map<number, string>>();

  constructor(private readonly policy: GuardrailsPolicy) {}

  /** Takes the arguments out of the chunk's tool-call deltas (names and ids pass on). */
  hold(choice: StreamChoice): void {
    for (const call of choice.delta?.tool_calls ?? []) {
      if (!isToolCall(call) || !call.function?.arguments) continue;
      const calls = this.#held.get(choice.index ?? 0) ?? new Map<number, string>();
      this.#held.set(choice.index ?? 0, calls);
      const index = call.index ?? 0;
      calls.set(index, (calls.get(index) ?? "") + call.function.arguments);
      call.function.arguments = "";
    }
  }

  /** At the choice's end: the held arguments checked, and added to this chunk (redacted) unless blocked. */
  release(choice: StreamChoice): StreamResult {
    const calls = this.#held.get(choice.index ?? 0);
    if (!calls) return { emit: "" };
    this.#held.delete(choice.index ?? 0);
    const findings: Finding[] = [];
    const released: ToolCallDelta[] = [];
    for (const [index, args] of calls) {
      const result = evaluate(args, this.policy, "tool_call");
      findings.push(...result.findings);
      if (result.action === "block") {
        const at = result.findings.find((f) => result.blockedBy?.includes(f.scanner)) ?? result.findings[0];
        if (at) return { emit: "", blocked: at, findings };
      }
      released.push({ index, function: { arguments: result.redacted ?? args } });
    }
    choice.delta ??= {};
    choice.delta.tool_calls = [...(choice.delta.tool_calls ?? []), ...released];
    return { emit: "", findings };
  }
}
