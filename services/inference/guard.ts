// Applies a deployment's guardrails policy to one request: the caller's messages before prompt
// processing (step 5), and the answer (step 8), while it streams in blocking mode or after it in async
// mode. Findings carry offsets and types only, never the matched text.
import type { StreamChunk } from "#adapters/upstream/sse-relay.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { type Evaluation, stageConfigs } from "../guardrails/evaluate.ts";
import { evaluateOffLoop } from "../guardrails/off-loop.ts";
import type { GuardrailsPolicy } from "../guardrails/policy.ts";
import type { Finding } from "../guardrails/scanner.ts";
import { createStreamScanner } from "../guardrails/stream-scan.ts";
import type { InputScanCache } from "./input-scan-cache.ts";
import { textOf } from "./messages.ts";

export interface GuardDecision {
  action: string;
  findings: (Omit<Finding, "start" | "end"> & { start: number; end: number; message?: number })[];
}

export interface OutputGuard {
  /** Blocking mode only: rewrites each chunk as it streams (redaction, holdback). */
  chunk?(chunk: StreamChunk): StreamChunk;
  /** The scanner that blocked the stream, if one did. */
  blockedBy(): string | undefined;
  /** Called with the whole answer at the end; async mode scans here (off the loop when it is long). */
  finish(content: string): Promise<GuardDecision>;
}

export interface RequestGuard {
  input(messages: ChatMessage[]): Promise<{
    messages: ChatMessage[];
    blockedBy?: string | undefined;
    decision: GuardDecision;
  }>;
  output(stream: boolean): OutputGuard | undefined;
  /** Non-streaming answers: checks (and in blocking mode redacts) the message content in place. */
  outputText(
    answer: Record<string, unknown>,
  ): Promise<{ blockedBy?: string | undefined; decision: GuardDecision }>;
}

/** Raised inside the stream relay to end a stream whose content a guardrail blocked. */
export class StreamBlocked extends Error {
  constructor(readonly scanner: string) {
    super(`the answer was blocked by the ${scanner} guardrail`);
  }
}

/** `inputScans`: the inference runtime's cache of recent input evaluations; without it each is scanned. */
export function requestGuard(
  policy: GuardrailsPolicy,
  inputScans?: InputScanCache,
): RequestGuard | undefined {
  const inputOn = stageConfigs(policy, "input").length > 0;
  const outputOn = stageConfigs(policy, "output").length > 0;
  if (!inputOn && !outputOn) return undefined;
  const blocking = (policy.output?.mode ?? "blocking") === "blocking";

  return {
    async input(messages) {
      const decision: GuardDecision = { action: "allow", findings: [] };
      if (!inputOn) return { messages, decision };
      let blockedBy: string | undefined;
      // The conversation so far comes again with every turn: its messages are evaluated once. Long
      // ones are scanned off the request loop, all at once.
      const results = await Promise.all(
        messages.map((message) => {
          if (message.role === "assistant") return undefined;
          const text = textOf(message);
          return inputScans ? inputScans.evaluate(text, policy) : evaluateOffLoop(text, policy, "input");
        }),
      );
      const checked = messages.map((message, index) => {
        const result = results[index];
        if (result === undefined) return message;
        for (const f of result.findings) decision.findings.push({ ...f, message: index });
        if (rank(result.action) > rank(decision.action)) decision.action = result.action;
        if (result.action === "block") blockedBy ??= result.blockedBy?.[0] ?? "guardrail";
        return result.action === "redact" && result.redacted !== undefined
          ? { ...message, content: result.redacted }
          : message;
      });
      return { messages: checked, blockedBy, decision };
    },

    output(stream) {
      if (!outputOn) return undefined;
      if (!blocking || !stream) {
        return {
          blockedBy: () => undefined,
          finish: async (content) => summarize(await evaluateOffLoop(content, policy, "output")),
        };
      }
      const scanner = createStreamScanner(policy.output ?? {});
      let blocked: string | undefined;
      const findings: GuardDecision["findings"] = [];
      const take = (result: ReturnType<typeof scanner.push>) => {
        for (const f of result.findings ?? []) findings.push(f);
        if (result.blocked) {
          blocked = result.blocked.scanner;
          findings.push(result.blocked);
          throw new StreamBlocked(blocked);
        }
        return result.emit;
      };
      return {
        chunk(chunk) {
          for (const choice of chunk.choices ?? []) {
            // The scanner holds text back and may redact it; the tokens' logprobs would spell it out before
            // (or instead of) the checked text, so they do not pass a blocking output guardrail.
            if (choice.logprobs) choice.logprobs = null;
            let text = choice.delta?.content ? take(scanner.push(choice.delta.content)) : "";
            if (choice.finish_reason) text += take(scanner.end());
            if (choice.delta && (choice.delta.content || text)) choice.delta.content = text;
          }
          return chunk;
        },
        blockedBy: () => blocked,
        finish: async () => ({ action: blocked ? "block" : findings.length ? "redact" : "allow", findings }),
      };
    },

    async outputText(answer) {
      const decision: GuardDecision = { action: "allow", findings: [] };
      if (!outputOn) return { decision };
      const choices =
        (answer.choices as { message?: { content?: string | null }; logprobs?: unknown }[] | undefined) ?? [];
      let blockedBy: string | undefined;
      for (const choice of choices) {
        const content = choice.message?.content;
        if (!content) continue;
        const result = await evaluateOffLoop(content, policy, "output");
        decision.findings.push(...result.findings);
        if (rank(result.action) > rank(decision.action)) decision.action = result.action;
        if (!blocking) continue;
        if (result.action === "block") blockedBy ??= result.blockedBy?.[0] ?? "guardrail";
        if (result.action === "redact" && result.redacted !== undefined && choice.message) {
          choice.message.content = result.redacted;
          // The logprobs hold the tokens of the text as written: they would undo the redaction.
          choice.logprobs = null;
        }
      }
      return { blockedBy, decision };
    },
  };
}

const rank = (action: string) => ({ allow: 0, log: 1, redact: 2, block: 3 })[action as "allow"] ?? 0;

function summarize(result: Evaluation): GuardDecision {
  return { action: result.action, findings: result.findings };
}
