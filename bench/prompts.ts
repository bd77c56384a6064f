// What the gateway benchmarks send, shared by bench/gateway.ts and bench/scan-1kb.ts (a module, not
// a benchmark: bench/index.ts does not list it).

/** A 1 KB prompt of ordinary prose: the guardrails scan all of it and find nothing to block. NONCE is
 * replaced by each request's own text. */
export const benchPrompt = (
  "Request NONCE. Please summarise the following notes from our planning meeting in three short bullet points. " +
  "The team agreed to move the quarterly review to the second week of the month so that the finance " +
  "figures are final before we discuss them. Marketing will prepare a draft of the spring campaign " +
  "with two alternative slogans, and the design group will test both with a small panel of customers. " +
  "Engineering reported that the new search page is faster on older phones and asked for more time to " +
  "finish the accessibility review before launch. Support noted fewer tickets about password resets " +
  "since the last release, and suggested that the help article on invoices be rewritten in plainer " +
  "language. We closed by listing open questions for next week: the hiring plan for the data team, the " +
  "budget for the conference in May, and whether the office should stay open on the public holiday. "
).slice(0, 1024);
