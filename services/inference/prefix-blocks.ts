// A prompt as prefix routing sees it (adapters/upstream/balancer.ts): a chain of 64-bit hashes over the
// request as the gateway renders it for the engine, in the engine's order: the tool definitions, then
// each message (role, name, content, tool calls), each split into fixed-size text blocks, so a long
// system prompt or a /v1/completions prompt that grows at its end shares all of its full blocks with
// the prompt before it. Block i's hash is seeded with block i−1's: two prompts share block i's hash only
// when everything up to it is the same, which is what an engine's prefix cache can reuse.
//
// The next turn of a conversation re-sends every earlier message (and the Responses API's
// `previous_response_id` expands into them before this point), so its chain starts with the chain of the
// turn before, and the router finds the replica that served it.
import type { ChatMessage } from "#contracts/openai/chat.ts";

/** Characters of text per block: about 256 tokens, a small share of a turn on a long prompt. */
export const blockChars = 1024;

// xxHash3: of Bun's hashes the quickest on text here (about 1 µs for 12 KB where wyhash took 4).
const hashOf = (text: string, seed: bigint): bigint => Bun.hash.xxHash3(text, seed);

export function promptBlocks(messages: readonly ChatMessage[], tools?: unknown): bigint[] {
  const blocks: bigint[] = [];
  let seed = 0n;
  if (tools !== undefined && tools !== null) {
    seed = hashOf(`tools\u0000${JSON.stringify(tools)}`, seed);
    blocks.push(seed);
  }
  for (const message of messages) {
    const text = renderedText(message);
    // The role seeds the message's first block; each block is hashed where it lies in the text (a
    // slice, never a copy joined to something else, which would cost a copy of its bytes).
    seed = hashOf(message.role, seed);
    if (text.length <= blockChars) {
      seed = hashOf(text, seed);
      blocks.push(seed);
      continue;
    }
    for (let start = 0; start < text.length; start += blockChars) {
      seed = hashOf(text.slice(start, start + blockChars), seed);
      blocks.push(seed);
    }
  }
  return blocks;
}

/** Everything of a message that reaches the engine's prompt, in a stable order. */
function renderedText(message: ChatMessage): string {
  const content =
    typeof message.content === "string"
      ? message.content
      : message.content
        ? JSON.stringify(message.content)
        : "";
  if (message.name === undefined && message.tool_calls === undefined && message.tool_call_id === undefined)
    return content;
  return `${content}\u0000${JSON.stringify([message.name, message.tool_calls, message.tool_call_id])}`;
}
