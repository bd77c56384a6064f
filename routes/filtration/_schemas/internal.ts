import { t } from "elysia";
import { GuardrailsConfig } from "#core/policies.ts";
import { ChatMessage } from "../../inference/v1/_schemas/chat.ts";

export { ChatMessage, GuardrailsConfig };

export const Uuid = t.String({ format: "uuid" });
export const Messages = t.Array(ChatMessage, { minItems: 1, maxItems: 4096 });
