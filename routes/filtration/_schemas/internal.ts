import { t } from "elysia";
import { ChatMessage } from "#contracts/openai/chat.ts";
import { GuardrailsConfig } from "#core/policies.ts";

export { ChatMessage, GuardrailsConfig };

export const Uuid = t.String({ format: "uuid" });
export const Messages = t.Array(ChatMessage, { minItems: 1, maxItems: 4096 });
