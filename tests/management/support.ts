// Rows the management tests need from other areas, written directly: a pool, a deployment in a given
// state and its replicas, so these tests do not depend on the reconciler or a worker.
import { eq } from "drizzle-orm";
import type { DeploymentState, ReplicaState } from "#core/domain.ts";
import type { Database } from "#db/client.ts";
import { deployments, organizations, pools, replicas } from "#db/schema/index.ts";

export async function defaultOrgId(db: Database): Promise<string> {
  const [org] = await db.select().from(organizations).where(eq(organizations.name, "default"));
  if (!org) throw new Error("no default organization");
  return org.id;
}

export interface DeploymentFixture {
  name: string;
  status?: DeploymentState;
  replicas?: { state: ReplicaState; endpoint: string | null }[];
  /** The external pool's replica endpoints (configuration.endpoints), written with the row itself. */
  endpoints?: string[];
  /** The replica count wanted (default 1). */
  wanted?: number;
}

export async function insertDeployment(db: Database, orgId: string, fixture: DeploymentFixture) {
  const [pool] = await db
    .insert(pools)
    .values({
      orgId,
      name: `pool-${crypto.randomUUID().slice(0, 8)}`,
      ownerId: orgId,
      provider: "external",
      state: "Active",
      nodeTokenHash: crypto.randomUUID(),
    })
    .returning();
  const [deployment] = await db
    .insert(deployments)
    .values({
      orgId,
      name: fixture.name,
      poolId: pool?.id as string,
      engine: "openai-compatible",
      image: "none",
      status: fixture.status ?? "RUNNING",
      desiredState: fixture.status === "STOPPED" ? "stopped" : "running",
      // In the same insert: a reconciler running meanwhile must never see the deployment without them.
      ...(fixture.endpoints ? { configuration: { endpoints: fixture.endpoints } } : {}),
      ...(fixture.wanted !== undefined ? { replicas: fixture.wanted } : {}),
    })
    .returning();
  const id = deployment?.id as string;
  for (const [index, replica] of (fixture.replicas ?? []).entries()) {
    await db
      .insert(replicas)
      .values({ deploymentId: id, index, state: replica.state, endpoint: replica.endpoint });
  }
  return { id, poolId: pool?.id as string };
}

export const fieldsOf = (body: { error?: { details?: { fields?: { field: string }[] } } }) =>
  (body.error?.details?.fields ?? []).map((f) => f.field);
