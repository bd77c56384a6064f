// What the deployments pages render: the API's views with the rules the services decide added, so that
// a view shows the buttons and pools the API would accept without knowing why.
import { poolAcceptsDeployments } from "#services/orchestration/pools.ts";
import { type DeploymentAction, deploymentActions } from "#services/orchestration/state-machine.ts";
import type { DeploymentView, PoolView } from "#services/orchestration/views.ts";

/** A deployment and what the state machine lets a user do with it now (start, terminate, delete). */
export interface DeploymentModel extends DeploymentView {
  actions: DeploymentAction[];
}

export const deploymentModel = (d: DeploymentView): DeploymentModel => ({
  ...d,
  actions: deploymentActions(d.status),
});

/** A pool of the deploy form and whether it takes a deployment now. */
export interface DeployPool extends PoolView {
  accepts_deployments: boolean;
}

export const deployPool = (p: PoolView): DeployPool => ({
  ...p,
  accepts_deployments: poolAcceptsDeployments(p.state),
});

/** States in which a deployment's replicas are moving: its page and the list poll faster. */
export const busyStates = new Set(["DEPLOYING", "STOPPING"]);
export const money = (n: number | null) => (n === null ? "—" : `$${n.toFixed(2)}/h`);
export const readyOf = (d: DeploymentView) => d.observed_replicas.filter((r) => r.state === "READY").length;
