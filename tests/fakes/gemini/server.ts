// A local stand-in for Google's Gemini API (generativelanguage.googleapis.com v1beta): GET /v1beta/models,
// POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse, :batchEmbedContents. It
// checks the `x-goog-api-key` (a wrong key is 400 INVALID_ARGUMENT with reason API_KEY_INVALID, as Google
// answers; none is 403 PERMISSION_DENIED) and the model in the path, checks the request's fields against
// the names of Google's REST reference (an unknown field is 400 INVALID_ARGUMENT, as the real API says
// "Unknown name"), and answers in Google's framing: GenerateContentResponse JSON, or SSE events each
// holding one (`data: {...}` with CRLF line ends, no [DONE]), errors as {error: {code, message, status}}.
// What it answers follows from the request:
// - tools and mode ANY, or "weather" in the last user turn: a functionCall of the allowed (else the first)
//   function with {city: "Paris", unit: "celsius"};
// - a functionResponse in the last turn: "It is sunny in Paris.";
// - "unsafe" in the last user turn: no content, finishReason SAFETY;
// - responseMimeType application/json: {"answer":"yes"};
// - else "You said: <last user text>", cut at a stop sequence or at maxOutputTokens words (MAX_TOKENS).
// Embeddings are 8 numbers derived from each text.

export interface FakeGeminiFailure {
  code: number;
  status: string;
  message: string;
}

export interface FakeGemini {
  baseUrl: string;
  apiKey: string;
  model: string;
  embeddingModel: string;
  /** Every POST received: the path's method (generateContent…) and the body. */
  requests: { method: string; url: string; body: Record<string, unknown> }[];
  failNext: FakeGeminiFailure | undefined;
  /** cachedContentTokenCount reported with every answer (0: the field is left out, as Google does). */
  cached: number;
  /** As Gemini 3: a model turn's functionCall sent back without its thoughtSignature is 400. */
  requireSignatures: boolean;
  stop(): void;
}

interface Part {
  text?: string;
  thoughtSignature?: string;
  functionCall?: { name: string; args?: object };
  functionResponse?: { name: string; response: object };
  inlineData?: { mimeType: string; data: string };
}
interface Content {
  role?: string;
  parts: Part[];
}
interface Received {
  contents: Content[];
  systemInstruction?: Content;
  tools?: { functionDeclarations?: { name: string }[] }[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: { maxOutputTokens?: number; stopSequences?: string[]; responseMimeType?: string };
}

// Field names from Google's REST reference (GenerateContentRequest, Content, Part, Tool,
// FunctionDeclaration, ToolConfig, GenerationConfig).
const known: Record<string, readonly string[]> = {
  request: [
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "generationConfig",
    "safetySettings",
    "cachedContent",
  ],
  content: ["role", "parts"],
  part: [
    "text",
    "thought",
    "thoughtSignature",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
  ],
  tool: ["functionDeclarations", "googleSearch", "codeExecution", "urlContext"],
  functionDeclaration: [
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "response",
    "responseJsonSchema",
    "behavior",
  ],
  functionCallingConfig: ["mode", "allowedFunctionNames"],
  generationConfig: [
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "candidateCount",
    "maxOutputTokens",
    "temperature",
    "topP",
    "topK",
    "seed",
    "presencePenalty",
    "frequencyPenalty",
    "responseLogprobs",
    "logprobs",
    "thinkingConfig",
  ],
};

/** The first field Google would not know, as its error names it; undefined when all are known. */
function unknownField(body: Received): string | undefined {
  const check = (value: object | undefined, kind: string, at: string): string | undefined => {
    if (value === undefined) return undefined;
    const bad = Object.keys(value).find((key) => !known[kind]?.includes(key));
    return bad === undefined ? undefined : `${at}.${bad}`;
  };
  const contents = [...body.contents, ...(body.systemInstruction ? [body.systemInstruction] : [])];
  return (
    check(body, "request", "") ??
    contents.map((c, i) => check(c, "content", `contents[${i}]`)).find(Boolean) ??
    contents
      .flatMap((c, i) => c.parts.map((p, j) => check(p, "part", `contents[${i}].parts[${j}]`)))
      .find(Boolean) ??
    (body.tools ?? []).map((t, i) => check(t, "tool", `tools[${i}]`)).find(Boolean) ??
    (body.tools ?? [])
      .flatMap((t) => t.functionDeclarations ?? [])
      .map((d, i) => check(d, "functionDeclaration", `functionDeclarations[${i}]`))
      .find(Boolean) ??
    check(
      body.toolConfig?.functionCallingConfig,
      "functionCallingConfig",
      "toolConfig.functionCallingConfig",
    ) ??
    check(body.generationConfig, "generationConfig", "generationConfig")
  );
}

const textOf = (content: Content | undefined) =>
  (content?.parts ?? [])
    .map((p) => p.text ?? "")
    .filter(Boolean)
    .join(" ");

type Answer =
  | { kind: "text"; text: string; finish: "STOP" | "MAX_TOKENS" | "SAFETY" }
  | { kind: "call"; name: string; args: Record<string, string> };

function answerOf(body: Received): Answer {
  const last = body.contents.at(-1);
  const answered = (last?.parts ?? []).some((p) => p.functionResponse);
  const functions = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const calling = body.toolConfig?.functionCallingConfig;
  if (!answered && functions.length > 0 && calling?.mode !== "NONE") {
    if (calling?.mode === "ANY" || /weather/i.test(textOf(last))) {
      const name = calling?.allowedFunctionNames?.[0] ?? functions[0]?.name ?? "";
      return { kind: "call", name, args: { city: "Paris", unit: "celsius" } };
    }
  }
  if (/unsafe/i.test(textOf(last))) return { kind: "text", text: "", finish: "SAFETY" };
  const config = body.generationConfig ?? {};
  let text = answered
    ? "It is sunny in Paris."
    : config.responseMimeType === "application/json"
      ? JSON.stringify({ answer: "yes" })
      : `You said: ${textOf(last)}`;
  for (const sequence of config.stopSequences ?? []) {
    const at = text.indexOf(sequence);
    if (at >= 0) return { kind: "text", text: text.slice(0, at), finish: "STOP" };
  }
  const words = text.split(" ");
  if (config.maxOutputTokens !== undefined && words.length > config.maxOutputTokens) {
    text = words.slice(0, config.maxOutputTokens).join(" ");
    return { kind: "text", text, finish: "MAX_TOKENS" };
  }
  return { kind: "text", text, finish: "STOP" };
}

/** What the fake signs its function calls with (a real one is opaque and differs per answer). */
export const thoughtSignature = "c2lnbmF0dXJlLW9mLXRoZS1mYWtl";

const vectorOf = (text: string) =>
  Array.from({ length: 8 }, (_, i) => ((text.charCodeAt(i % text.length) * (i + 1)) % 97) / 97);

export function startFakeGemini(options: { model?: string; embeddingModel?: string } = {}): FakeGemini {
  const fake: FakeGemini = {
    baseUrl: "",
    apiKey: `AIza-fake-${crypto.randomUUID()}`,
    model: options.model ?? "gemini-2.5-flash",
    embeddingModel: options.embeddingModel ?? "gemini-embedding-001",
    requests: [],
    failNext: undefined,
    cached: 0,
    requireSignatures: false,
    stop: () => server.stop(true),
  };

  const error = (code: number, status: string, message: string, reason?: string) =>
    Response.json(
      {
        error: {
          code,
          message,
          status,
          ...(reason
            ? {
                details: [
                  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" },
                ],
              }
            : {}),
        },
      },
      { status: code },
    );

  const usage = (body: Received, output: number) => {
    const prompt = body.contents.reduce((n, c) => n + textOf(c).split(/\s+/).filter(Boolean).length, 0);
    return {
      promptTokenCount: prompt + fake.cached,
      candidatesTokenCount: output,
      totalTokenCount: prompt + fake.cached + output,
      ...(fake.cached > 0 ? { cachedContentTokenCount: fake.cached } : {}),
    };
  };

  const candidate = (parts: Part[], finishReason?: string) => ({
    content: { parts, role: "model" },
    ...(finishReason ? { finishReason } : {}),
    index: 0,
  });

  function generate(body: Received, streamed: boolean): Response {
    const answer = answerOf(body);
    const responseId = crypto.randomUUID().replaceAll("-", "").slice(0, 20);
    const common = { modelVersion: fake.model, responseId };
    if (!streamed) {
      const parts: Part[] =
        answer.kind === "call"
          ? [{ functionCall: { name: answer.name, args: answer.args }, thoughtSignature }]
          : answer.text
            ? [{ text: answer.text }]
            : [];
      const output = answer.kind === "call" ? 8 : answer.text.split(" ").filter(Boolean).length;
      return Response.json({
        candidates: [candidate(parts, answer.kind === "call" ? "STOP" : answer.finish)],
        usageMetadata: usage(body, output),
        ...common,
      });
    }
    const events: object[] = [];
    if (answer.kind === "call") {
      events.push({
        candidates: [
          candidate([{ functionCall: { name: answer.name, args: answer.args }, thoughtSignature }], "STOP"),
        ],
        usageMetadata: usage(body, 8),
        ...common,
      });
    } else {
      const words = answer.text.split(" ").filter(Boolean);
      words.forEach((word, i) => {
        const last = i === words.length - 1;
        events.push({
          candidates: [candidate([{ text: i === 0 ? word : ` ${word}` }], last ? answer.finish : undefined)],
          usageMetadata: usage(body, i + 1),
          ...common,
        });
      });
      if (words.length === 0) {
        events.push({
          candidates: [{ finishReason: answer.finish, index: 0 }],
          usageMetadata: usage(body, 0),
          ...common,
        });
      }
    }
    const text = events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  }

  function embed(body: { requests?: { model?: string; content?: Content }[] }): Response {
    const requests = body.requests ?? [];
    const wrong = requests.find((r) => r.model !== `models/${fake.embeddingModel}`);
    if (wrong)
      return error(400, "INVALID_ARGUMENT", `requests[].model must be models/${fake.embeddingModel}`);
    return Response.json({ embeddings: requests.map((r) => ({ values: vectorOf(textOf(r.content)) })) });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const key = req.headers.get("x-goog-api-key");
      if (!key) return error(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers");
      if (key !== fake.apiKey) {
        return error(
          400,
          "INVALID_ARGUMENT",
          "API key not valid. Please pass a valid API key.",
          "API_KEY_INVALID",
        );
      }
      if (req.method === "GET" && url.pathname === "/v1beta/models") {
        return Response.json({
          models: [fake.model, fake.embeddingModel].map((m) => ({ name: `models/${m}`, displayName: m })),
        });
      }
      const match =
        /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents)$/.exec(
          url.pathname,
        );
      if (req.method !== "POST" || !match) return error(404, "NOT_FOUND", `${url.pathname} not found`);
      const [, model, method = ""] = match;
      const body = await req.json();
      fake.requests.push({ method, url: req.url, body });
      const expected = method === "batchEmbedContents" ? fake.embeddingModel : fake.model;
      if (model !== expected)
        return error(404, "NOT_FOUND", `models/${model} is not found for API version v1beta`);
      const failure = fake.failNext;
      if (failure) {
        fake.failNext = undefined;
        return error(failure.code, failure.status, failure.message);
      }
      if (method === "batchEmbedContents") return embed(body);
      const unknown = unknownField(body);
      if (unknown)
        return error(400, "INVALID_ARGUMENT", `Invalid JSON payload received. Unknown name "${unknown}"`);
      const unsigned = body.contents.some(
        (c: Content) =>
          c.role === "model" &&
          c.parts.some((p) => p.functionCall && p.thoughtSignature !== thoughtSignature),
      );
      if (fake.requireSignatures && unsigned) {
        return error(
          400,
          "INVALID_ARGUMENT",
          "Function call is missing a thought_signature in functionCall parts.",
        );
      }
      if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
        return error(400, "INVALID_ARGUMENT", "this fake streams only with alt=sse");
      }
      return generate(body, method === "streamGenerateContent");
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}`;
  return fake;
}
