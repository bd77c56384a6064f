// What the pool pages render: the API's view with the rule the services decide added, so the page offers
// the delete button only when the API would take the request.
import { poolDeletable } from "#services/orchestration/state-machine.ts";
import type { PoolView } from "#services/orchestration/views.ts";

/** A pool and whether it may be asked to go now (not already Deleting). */
export interface PoolModel extends PoolView {
  deletable: boolean;
}

export const poolModel = (p: PoolView): PoolModel => ({ ...p, deletable: poolDeletable(p.state) });
