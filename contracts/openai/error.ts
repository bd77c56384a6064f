// OpenAI's error body: what every OpenAI-compatible route, the llama.cpp worker and a stream's error event
// carry. Written once here.
import { type Static, Type as T } from "@sinclair/typebox";

export const OpenAIErrorDetail = T.Object({
  message: T.String(),
  type: T.String(),
  param: T.Union([T.String(), T.Null()]),
  code: T.Union([T.String(), T.Null()]),
});
export type OpenAIErrorDetail = Static<typeof OpenAIErrorDetail>;

export const OpenAIError = T.Object({ error: OpenAIErrorDetail });
export type OpenAIError = Static<typeof OpenAIError>;

/** The inner object as a stream's error event may carry it from a server we do not control. */
export type ReceivedErrorDetail = Pick<OpenAIErrorDetail, "message"> &
  Partial<Omit<OpenAIErrorDetail, "message">>;
