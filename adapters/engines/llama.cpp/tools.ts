// OpenAI tool calling on node-llama-cpp. Two ways, chosen by tool_choice:
// - "auto": the tools go to LlamaChat as `functions`; the model's chat wrapper documents them in the prompt in the
//   model's own syntax, and once the model starts a call, node-llama-cpp constrains its parameters to the schema.
// - "required" or a named function: the answer must be a call, so the whole output is grammar-constrained to
//   {"name": <one of the tools>, "arguments": <that tool's parameters>} by the same JSON-schema grammar as
//   response_format (json-schema.ts); even random weights write a valid call.
// Either way each call's arguments are then checked against the tool's whole schema (ajv), as structured outputs.
// Earlier calls and their results (assistant `tool_calls`, `tool` messages) become functionCall items of the chat
// history, which the wrapper renders the way the model was trained to read them.
import type { ChatModelFunctions, GbnfJsonSchema } from "node-llama-cpp";
import type { EngineChatCompletionRequest, FunctionTool, ToolCall } from "#contracts/openai/chat.ts";
import { schemaCheck, toGrammarSchema, UnsupportedSchemaError } from "./json-schema.ts";
import { invalidRequest, type Parsed } from "./openai-shapes.ts";

/** undefined when a call's arguments are valid, else why not. */
export type ArgumentsCheck = (value: unknown) => string | undefined;

export type ToolPlan =
  | { kind: "none" }
  | {
      kind: "auto";
      functions: ChatModelFunctions;
      maxParallelCalls: number | undefined;
      checks: Map<string, ArgumentsCheck>;
    }
  | {
      kind: "forced";
      /** JSON Schema of {name, arguments} for the tools allowed, one branch per tool. */
      schema: unknown;
      /** Tells the model what to write, added to the system prompt. */
      instructions: string;
      checks: Map<string, ArgumentsCheck>;
    };

/** Reads tools, tool_choice and parallel_tool_calls into a plan, or a 400 naming the field. */
export function planTools(req: EngineChatCompletionRequest): Parsed<ToolPlan> {
  const tools = req.tools ?? [];
  const choice = req.tool_choice ?? (tools.length > 0 ? "auto" : "none");
  if (choice !== "none" && tools.length === 0)
    return refuse("tool_choice needs tools: no tools were given", "tool_choice");
  if (choice === "none") return { ok: true, value: { kind: "none" } };

  const parameters = new Map<string, GbnfJsonSchema>();
  const checks = new Map<string, ArgumentsCheck>();
  for (const [i, tool] of tools.entries()) {
    const name = tool.function.name;
    if (checks.has(name)) return refuse(`two tools are named "${name}"`, `tools[${i}].function.name`);
    const schema = parametersOf(tool);
    try {
      checks.set(name, schemaCheck(schema));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return refuse(`the parameters are not a valid JSON Schema: ${why}`, `tools[${i}].function.parameters`);
    }
    if (choice !== "auto") continue;
    try {
      parameters.set(name, toGrammarSchema(schema));
    } catch (error) {
      if (error instanceof UnsupportedSchemaError)
        return refuse(error.message, `tools[${i}].function.parameters`);
      throw error;
    }
  }

  if (choice === "auto") {
    const functions: ChatModelFunctions = Object.fromEntries(
      tools.map((tool) => [
        tool.function.name,
        {
          ...(tool.function.description ? { description: tool.function.description } : {}),
          params: parameters.get(tool.function.name),
        },
      ]),
    );
    return {
      ok: true,
      value: {
        kind: "auto",
        functions,
        maxParallelCalls: req.parallel_tool_calls === false ? 1 : undefined,
        checks,
      },
    };
  }

  const allowed =
    typeof choice === "object" ? tools.filter((t) => t.function.name === choice.function.name) : tools;
  if (allowed.length === 0 && typeof choice === "object")
    return refuse(`tool_choice names "${choice.function.name}", which is not among the tools`, "tool_choice");
  const [only, ...others] = allowed;
  const single = others.length === 0;
  const callOf = (tool: FunctionTool, i: number) => ({
    type: "object",
    // The grammar writes the properties in this order: the name first, so a stream can announce it early.
    properties: {
      name: { const: tool.function.name },
      // The parameters' own references ($ref "#/$defs/x") now point inside the call schema.
      arguments: rebaseRefs(
        parametersOf(tool),
        single ? "#/properties/arguments" : `#/oneOf/${i}/properties/arguments`,
      ),
    },
    required: ["name", "arguments"],
    additionalProperties: false,
  });
  const schema = only !== undefined && single ? callOf(only, 0) : { oneOf: allowed.map(callOf) };
  return {
    ok: true,
    value: { kind: "forced", schema, instructions: forcedCallInstructions(allowed), checks },
  };
}

function parametersOf(tool: FunctionTool): unknown {
  return tool.function.parameters ?? { type: "object", properties: {} };
}

/** Every local `$ref` ("#...") of `schema` rewritten to hang under `base`. */
function rebaseRefs(schema: unknown, base: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rebaseRefs(item, base));
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === "$ref" && typeof value === "string" && value.startsWith("#")
        ? `${base}${value.slice(1)}`
        : rebaseRefs(value, base),
    ]),
  );
}

function forcedCallInstructions(tools: FunctionTool[]): string {
  const listed = tools.map((t) => {
    const description = t.function.description ? ` ${t.function.description}` : "";
    return `- ${t.function.name}:${description} Parameters (JSON Schema): ${JSON.stringify(t.function.parameters ?? {})}`;
  });
  return [
    tools.length === 1 ? "Call this function:" : "Call one of these functions:",
    ...listed,
    'Answer with only a JSON object {"name": <the function name>, "arguments": <its arguments>}.',
  ].join("\n");
}

export function newToolCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * A forced call as the model writes it, `{"name": "f", "arguments": {...}}`, read as it streams: the name once
 * it is complete, then the arguments' text in pieces. The outer object's closing brace is held back until the
 * end, so the pieces joined are exactly the arguments.
 */
export class ForcedCallReader {
  private text = "";
  private argsStart = -1;
  private sent = 0;
  name: string | undefined;

  /** Feeds generated text; returns what became known: the name (once) and more of the arguments. */
  push(chunk: string): { name?: string; arguments?: string } {
    this.text += chunk;
    const out: { name?: string; arguments?: string } = {};
    if (this.argsStart < 0) {
      const head = /^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"arguments"\s*:\s*/.exec(this.text);
      if (!head) return out;
      this.name = String(JSON.parse(`"${head[1]}"`));
      this.argsStart = head[0].length;
      out.name = this.name;
    }
    // What may still turn out to be the outer object's end stays back.
    const settled = this.argumentsText().replace(/[\s}]*$/, "");
    if (settled.length > this.sent) {
      out.arguments = settled.slice(this.sent);
      this.sent = settled.length;
    }
    return out;
  }

  /** The text after `"arguments":`, without the whitespace the grammar let the model put before it. */
  private argumentsText(): string {
    return this.text.slice(this.argsStart).trimStart();
  }

  /** At the end of the generation: the rest of the arguments, and the call whole (undefined if it never began). */
  finish(): { rest: string; call: { name: string; arguments: string } | undefined } {
    if (this.argsStart < 0 || this.name === undefined) return { rest: "", call: undefined };
    const whole = this.argumentsText().trimEnd();
    // A complete answer ends with the outer "}"; a cut one (max_tokens) is returned as far as it got.
    const args = complete(this.text) ? whole.slice(0, -1).trimEnd() : whole;
    const rest = args.slice(this.sent);
    this.sent = args.length;
    return { rest, call: { name: this.name, arguments: args } };
  }
}

function complete(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function toolCallOut(id: string, name: string, args: string): ToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}

function refuse(message: string, param: string): Parsed<never> {
  return { ok: false, error: invalidRequest(message, param) };
}
