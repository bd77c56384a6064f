// An OpenAI-compatible server that already runs somewhere (the `external` provider's engine):
// nothing to launch, the platform only routes to it.
import type { Engine } from "../engine.ts";

export const openaiCompatibleEngine: Engine = {
  id: "openai-compatible",
  healthPath: "/v1/models",
};
