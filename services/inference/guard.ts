// Applies a deployment's guardrails policy to one request: the caller's messages before prompt
// processing (step 5), and the answer (step 8), while it streams in blocking mode or after it in async
// mode. Findings carry offsets and types only, never the matched text.
import type { ChatMessage, ReceivedChunk } from "#contracts/openai/chat.ts";
import { type Evaluation, stageConfigs } from "../guardrails/evaluate.ts";
import { isDataMessage, textOf } from "../guardrails/message-text.ts";
import { evaluateOffLoop } from "../guardrails/off-loop.ts";
import type { GuardrailsPolicy } from "../guardrails/policy.ts";
import type { Finding } from "../guardrails/scanner.ts";
import { createStreamScanner } from "../guardrails/stream-scan.ts";
import type { InputScanCache } from "./input-scan-cache.ts";
import { scanToolCalls, ToolCallHoldback } from "./tool-calls.ts";
import { treatData } from "./tool-data.ts";

export interface GuardDecision {
  action: string;
  findings: (Omit<Finding, "start" | "end"> & { start: number; end: number; message?: number })[];
}

export interface OutputGuard {
  /** Blocking mode only: rewrites each chunk as it streams (redaction, holdback). */
  chunk?(chunk: ReceivedChunk): ReceivedChunk;
  /** The scanner that blocked the stream, if one did. */
  blockedBy(): string | undefined;
  /** Called with the whole answer at the end; async mode scans here (off the loop when it is long). */
  finish(content: string): Promise<GuardDecision>;
}

/** What the input scan of a request decided, and the messages the model may see. */
export interface InputChecked {
  messages: ChatMessage[];
  blockedBy?: string | undefined;
  decision: GuardDecision;
}

/**
 * The scanners of one part of the input policy: all of them, the redacting one (pii: redact, whose
 * result is what the model may see), or the rest (blocking and logging: in the policy's `parallel`
 * mode they run while the model is asked).
 */
export type InputPart = "all" | "redacting" | "rest";

export interface RequestGuard {
  input(messages: ChatMessage[], part?: InputPart): Promise<InputChecked>;
  /**
   * The input policy's `parallel` mode applies: it has scanners that do not redact (else there is
   * nothing to run beside the model's call).
   */
  parallelInput: boolean;
  output(stream: boolean): OutputGuard | undefined;
  /** Non-streaming answers: checks (and in blocking mode redacts) the message content in place. */
  outputText(answer: OutputAnswer): Promise<{ blockedBy?: string | undefined; decision: GuardDecision }>;
}

/** Raised inside the stream relay to end a stream whose content a guardrail blocked. */
export class StreamBlocked extends Error {
  constructor(readonly scanner: string) {
    super(`the answer was blocked by the ${scanner} guardrail`);
  }
}

/** An answer's choices as the output guardrails check them (in place); the rest is not read. */
export interface OutputAnswer {
  choices?: { message?: { content?: string | null; tool_calls?: unknown }; logprobs?: unknown }[] | undefined;
}

/** `inputScans`: the inference runtime's cache of recent input evaluations; without it each is scanned. */
export function requestGuard(
  policy: GuardrailsPolicy,
  inputScans?: InputScanCache,
): RequestGuard | undefined {
  // "data" runs the input scanners and indirect injection; "tool_call" the output ones and indirect injection.
  const inputOn = stageConfigs(policy, "data").length > 0;
  const outputOn = stageConfigs(policy, "tool_call").length > 0;
  if (!inputOn && !outputOn) return undefined;
  const blocking = (policy.output?.mode ?? "blocking") === "blocking";
  const parts = inputParts(policy);
  return {
    parallelInput: policy.input?.mode === "parallel" && parts.rest !== undefined,
    async input(messages, part = "all") {
      const partPolicy = part === "all" ? policy : parts[part];
      if (!inputOn || !partPolicy) return { messages, decision: { action: "allow", findings: [] } };
      return scanInput(messages, policy, partPolicy, inputScans);
    },
    output(stream) {
      if (!outputOn) return undefined;
      if (blocking && stream) return blockingStreamGuard(policy);
      return {
        blockedBy: () => undefined,
        finish: async (content) => summarize(await evaluateOffLoop(content, policy, "output")),
      };
    },
    async outputText(answer) {
      if (!outputOn) return { decision: { action: "allow", findings: [] } };
      return checkOutputText(answer, policy, blocking);
    },
  };
}

/**
 * The input scan: each message but the assistant's evaluated (the conversation so far comes again with
 * every turn: `inputScans` evaluates its messages once; long ones are scanned off the request loop, all
 * at once), redacted or treated as data, and the decision over all of them.
 */
async function scanInput(
  messages: ChatMessage[],
  policy: GuardrailsPolicy,
  partPolicy: GuardrailsPolicy,
  inputScans: InputScanCache | undefined,
): Promise<InputChecked> {
  const decision: GuardDecision = { action: "allow", findings: [] };
  let blockedBy: string | undefined;
  const results = await Promise.all(
    messages.map((message) => {
      if (message.role === "assistant") return undefined;
      const text = textOf(message);
      // A tool's result is data: an instruction in it is aimed at the assistant by someone else.
      const stage = isDataMessage(message) ? "data" : "input";
      return inputScans
        ? inputScans.evaluate(text, partPolicy, stage)
        : evaluateOffLoop(text, partPolicy, stage);
    }),
  );
  const checked = messages.map((message, index) => {
    const result = results[index];
    if (result === undefined) return message;
    for (const f of result.findings) decision.findings.push({ ...f, message: index });
    if (rank(result.action) > rank(decision.action)) decision.action = result.action;
    if (result.action === "block") blockedBy ??= result.blockedBy?.[0] ?? "guardrail";
    const redacted =
      result.action === "redact" && result.redacted !== undefined
        ? { ...message, content: result.redacted }
        : message;
    return isDataMessage(message)
      ? treatData(redacted, result, policy.input?.indirect_injection?.action)
      : redacted;
  });
  return { messages: checked, blockedBy, decision };
}

/** A streamed answer under a blocking output policy: each chunk checked (and redacted) as it passes. */
function blockingStreamGuard(policy: GuardrailsPolicy): OutputGuard {
  const scanner = createStreamScanner(policy.output ?? {});
  const toolCalls = new ToolCallHoldback(policy);
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
        // Tool-call arguments are held until the choice ends, then checked whole.
        toolCalls.hold(choice);
        if (choice.finish_reason) take(toolCalls.release(choice));
        let text = choice.delta?.content ? take(scanner.push(choice.delta.content)) : "";
        if (choice.finish_reason) text += take(scanner.end());
        if (choice.delta && (choice.delta.content || text)) choice.delta.content = text;
      }
      return chunk;
    },
    blockedBy: () => blocked,
    finish: async () => ({ action: blocked ? "block" : findings.length ? "redact" : "allow", findings }),
  };
}

/** A whole answer's choices checked: tool calls and content; in blocking mode redacted in place. */
async function checkOutputText(
  answer: OutputAnswer,
  policy: GuardrailsPolicy,
  blocking: boolean,
): Promise<{ blockedBy?: string | undefined; decision: GuardDecision }> {
  const decision: GuardDecision = { action: "allow", findings: [] };
  let blockedBy: string | undefined;
  for (const choice of answer.choices ?? []) {
    const calls = await scanToolCalls(choice.message?.tool_calls, policy, blocking);
    decision.findings.push(...calls.findings);
    if (rank(calls.action) > rank(decision.action)) decision.action = calls.action;
    if (blocking && calls.blockedBy) blockedBy ??= calls.blockedBy;
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
}

// The two parts of an input policy, built once per policy object (a deployment's context keeps its
// policy object while cached, and the input scan cache keys its results by the part's scanners).
const partsOf = new WeakMap<GuardrailsPolicy, Partial<Record<"redacting" | "rest", GuardrailsPolicy>>>();

function inputParts(policy: GuardrailsPolicy): Partial<Record<"redacting" | "rest", GuardrailsPolicy>> {
  let parts = partsOf.get(policy);
  if (parts) return parts;
  const { pii, toxicity, prompt_injection, indirect_injection } = policy.input ?? {};
  const redacting = pii?.action === "redact" ? pii : undefined;
  // Stripping or wrapping a tool's result changes what the model reads: that runs before the call too.
  const rewritesData = indirect_injection?.action === "strip" || indirect_injection?.action === "wrap";
  const rest = {
    ...(pii && !redacting ? { pii } : {}),
    ...(toxicity ? { toxicity } : {}),
    ...(prompt_injection ? { prompt_injection } : {}),
    ...(indirect_injection && !rewritesData ? { indirect_injection } : {}),
  };
  const before = {
    ...(redacting ? { pii: redacting } : {}),
    ...(indirect_injection && rewritesData ? { indirect_injection } : {}),
  };
  parts = {
    ...(redacting || rewritesData ? { redacting: { input: before } } : {}),
    ...(stageConfigs({ input: rest }, "data").length > 0 ? { rest: { input: rest } } : {}),
  };
  partsOf.set(policy, parts);
  return parts;
}

/** The order `evaluate` gives a message's findings in (stageConfigs' input order). */
const scannerOrder: Record<string, number> = {
  prompt_injection: 0,
  pii: 1,
  toxicity: 2,
  indirect_injection: 3,
};

/**
 * The decision of the whole input from its two parts' (redacting first), as one scan of all the
 * scanners would have given it: findings by message, then in the scanners' order.
 */
export function mergeInputParts(redacting: InputChecked, rest: InputChecked): InputChecked {
  const findings = [...redacting.decision.findings, ...rest.decision.findings].sort(
    (a, b) =>
      (a.message ?? 0) - (b.message ?? 0) || (scannerOrder[a.scanner] ?? 0) - (scannerOrder[b.scanner] ?? 0),
  );
  const action =
    rank(rest.decision.action) > rank(redacting.decision.action)
      ? rest.decision.action
      : redacting.decision.action;
  return {
    messages: redacting.messages,
    blockedBy: rest.blockedBy ?? redacting.blockedBy,
    decision: { action, findings },
  };
}

const rank = (action: string) => ({ allow: 0, log: 1, redact: 2, block: 3 })[action as "allow"] ?? 0;

function summarize(result: Evaluation): GuardDecision {
  return { action: result.action, findings: result.findings };
}
