import { Layout } from "../_shared/layout.tsx";
import type { PageInfo } from "../_shared/page.ts";
import { Field, Select, TextArea } from "../_shared/parts/form.tsx";
import { EmptyState, PageHeader } from "../_shared/parts/list.tsx";

export interface PlaygroundPageProps {
  page: PageInfo;
  deployments: { id: string; name: string; status: string }[];
  /** `?deployment=<name>`: preselected when it is RUNNING. */
  selected?: string | undefined;
  /** Whether this process runs the inference runtime (SERVICES includes inference). */
  inference: boolean;
}

/** The sampling settings sent with each turn: name, label, range, starting value and step. */
const samplingFields: [string, string, number, number, string, string?][] = [
  ["max_tokens", "Max tokens", 1, 32768, "256"],
  ["temperature", "Temperature", 0, 2, "0.7", "0.1"],
];

/**
 * The conversation lives in the page: assets/dashboard.js keeps the turns, posts them all to
 * /playground/chat on every Send and appends the answer's tokens to the transcript as they arrive.
 */
export function PlaygroundPage({ page, deployments, selected, inference }: PlaygroundPageProps) {
  const running = deployments.filter((d) => d.status === "RUNNING");
  const others = deployments.length - running.length;
  return (
    <Layout title="Playground" page={page}>
      <PageHeader title="Playground" />
      {!inference ? (
        <div class="notice warn" role="alert">
          <p>
            <strong>The playground is unavailable here.</strong> This process does not run the inference
            gateway (the <code>SERVICES</code> setting has no <code>inference</code>), so it cannot call a
            model. Run the dashboard together with the inference service to chat from this page.
          </p>
        </div>
      ) : running.length === 0 ? (
        <EmptyState title="No RUNNING deployment to chat with">
          <p>
            {others > 0
              ? "Your deployments are not RUNNING yet: wait for one to start, or start a stopped one. "
              : "Create a deployment, wait for it to turn RUNNING, then come back here. "}
            <a href="/deployments">Go to deployments</a>
          </p>
        </EmptyState>
      ) : (
        <form class="playground" method="post" action="/playground/chat" data-playground>
          <div class="grid2">
            <Select
              name="deployment"
              label="Deployment"
              required
              choices={running.map((d) => ({ value: d.name, label: d.name }))}
              values={{ deployment: selected ?? running[0]?.name ?? "" }}
              hint={others > 0 ? `${others} other deployment(s) are not RUNNING and not listed.` : undefined}
            />
            <div class="grid2">
              {samplingFields.map(([name, label, min, max, start, step]) => (
                <Field
                  name={name}
                  label={label}
                  type="number"
                  min={min}
                  max={max}
                  {...(step ? { attrs: { step } } : {})}
                  values={{ [name]: start }}
                />
              ))}
            </div>
          </div>
          <TextArea
            name="system"
            label="System prompt (optional)"
            rows={2}
            hint="Sent first on every turn; the deployment's prompt template still applies."
          />
          <section class="transcript" data-transcript aria-live="polite" aria-label="Conversation">
            <p class="muted" data-transcript-empty>
              No messages yet. Write one below and press Send; the answer appears here as it is generated.
            </p>
          </section>
          <div class="error" role="alert" data-playground-error hidden></div>
          <TextArea name="message" label="Message" rows={3} required placeholder="Ask something…" />
          <div class="actions">
            <button type="submit" data-send>
              Send
            </button>
            <button type="button" class="secondary" data-clear>
              New conversation
            </button>
            <span class="muted" data-playground-status></span>
          </div>
        </form>
      )}
    </Layout>
  );
}
