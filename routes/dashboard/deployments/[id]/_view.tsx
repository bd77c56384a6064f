import { Layout } from "../../_shared/layout.tsx";
import type { PageInfo } from "../../_shared/page.ts";
import { PageHeader } from "../../_shared/parts/list.tsx";
import type { DeploymentModel } from "../_model.ts";
import { DeploymentLive } from "./_live.tsx";

export function DeploymentPage({ page, d }: { page: PageInfo; d: DeploymentModel }) {
  return (
    <Layout title={`Deployment ${d.model_name}`} page={page}>
      <p>
        <a href="/deployments">← Deployments</a>
      </p>
      <PageHeader title={`Deployment ${d.model_name}`}>
        <a class="button secondary" href={`/deployments/${d.deployment_id}/policies`}>
          Policies
        </a>
        <a class="button secondary" href={`/playground?deployment=${encodeURIComponent(d.model_name)}`}>
          Open in playground
        </a>
      </PageHeader>
      <DeploymentLive page={page} d={d} />
      <h2>Logs</h2>
      <pre
        class="log"
        id="deployment-log"
        data-log-socket={`/deployments/${d.deployment_id}/logs-ws`}
        aria-live="off"
        tabindex="0"
      ></pre>
      <p class="muted" id="deployment-log-state" aria-live="polite">
        connecting…
      </p>
    </Layout>
  );
}
