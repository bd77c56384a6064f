// The SDK types scripts/anthropic-api-schema.ts turns into a JSON Schema: each alias is a root of
// the generated document (named Pinned*, as the SDK's own names are taken by the types they alias).
import type {
  Message,
  MessageCreateParamsBase,
  MessageTokensCount,
  RawMessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ErrorResponse } from "@anthropic-ai/sdk/resources/shared";

export type PinnedMessage = Message;
export type PinnedRawMessageStreamEvent = RawMessageStreamEvent;
export type PinnedMessageTokensCount = MessageTokensCount;
export type PinnedErrorResponse = ErrorResponse;
/** What a client sends (the fakes of tests/fakes/anthropic check the platform's upstream requests with it). */
export type PinnedMessageCreateParams = MessageCreateParamsBase;
