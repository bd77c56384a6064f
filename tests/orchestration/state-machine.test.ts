// The deployment and pool state machines of CONTRACTS, checked move by move.
import { expect, test } from "bun:test";
import { type DeploymentState, deploymentStates, poolStates } from "#core/domain.ts";
import { AppError } from "#core/errors.ts";
import { assertPoolAcceptsDeployments, poolAcceptsDeployments } from "#services/orchestration/pools.ts";
import {
  assertDeploymentMove,
  assertDeploymentRemovable,
  assertPoolMove,
  assertPoolRemovable,
  canMoveDeployment,
  deploymentActions,
} from "#services/orchestration/state-machine.ts";

const allowed: [DeploymentState, DeploymentState][] = [
  ["DEPLOYING", "RUNNING"],
  ["RUNNING", "STOPPING"],
  ["STOPPING", "STOPPED"],
  ["STOPPED", "DEPLOYING"],
  ["FAILED", "DEPLOYING"],
  ["DEPLOYING", "FAILED"],
  ["RUNNING", "FAILED"],
  ["STOPPING", "FAILED"],
  ["STOPPED", "FAILED"],
];

test("exactly the deployment moves of CONTRACTS are allowed", () => {
  for (const from of deploymentStates) {
    for (const to of deploymentStates) {
      const expected = allowed.some(([f, t]) => f === from && t === to);
      expect(canMoveDeployment(from, to), `${from} -> ${to}`).toBe(expected);
    }
  }
});

test("a forbidden move is failed_precondition (409 / FAILED_PRECONDITION) and says what was needed", () => {
  try {
    assertDeploymentMove("DEPLOYING", "STOPPING");
    throw new Error("allowed");
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("failed_precondition");
    expect((error as AppError).message).toBe(
      "cannot terminate a deployment that is DEPLOYING (it must be RUNNING)",
    );
  }
  expect(() => assertDeploymentMove("RUNNING", "DEPLOYING")).toThrow(
    "cannot start a deployment that is RUNNING (it must be STOPPED or FAILED)",
  );
});

test("only STOPPED or FAILED deployments can be deleted", () => {
  for (const state of deploymentStates) {
    const removable = state === "STOPPED" || state === "FAILED";
    if (removable) expect(() => assertDeploymentRemovable(state)).not.toThrow();
    else expect(() => assertDeploymentRemovable(state)).toThrow(AppError);
  }
});

test("pools: Provisioning -> Active -> Deleting; Failed; nothing leaves Deleting", () => {
  expect(() => assertPoolMove("Provisioning", "Active")).not.toThrow();
  expect(() => assertPoolMove("Active", "Deleting")).not.toThrow();
  expect(() => assertPoolMove("Provisioning", "Failed")).not.toThrow();
  expect(() => assertPoolMove("Failed", "Deleting")).not.toThrow();
  expect(() => assertPoolMove("Active", "Provisioning")).toThrow(AppError);
  expect(() => assertPoolMove("Deleting", "Active")).toThrow(AppError);
  expect(() => assertPoolRemovable({ state: "Active" }, ["busy"])).toThrow("busy");
  expect(() => assertPoolRemovable({ state: "Active" }, [])).not.toThrow();
});

test("the actions a deployment offers are the ones its state machine accepts", () => {
  expect(deploymentActions("DEPLOYING")).toEqual([]);
  expect(deploymentActions("RUNNING")).toEqual(["terminate"]);
  expect(deploymentActions("STOPPING")).toEqual([]);
  expect(deploymentActions("STOPPED")).toEqual(["start", "delete"]);
  expect(deploymentActions("FAILED")).toEqual(["start", "delete"]);
  for (const state of deploymentStates) {
    const actions = deploymentActions(state);
    expect(actions.includes("start"), state).toBe(canMoveDeployment(state, "DEPLOYING"));
    expect(actions.includes("terminate"), state).toBe(canMoveDeployment(state, "STOPPING"));
    if (actions.includes("delete")) expect(() => assertDeploymentRemovable(state)).not.toThrow();
    else expect(() => assertDeploymentRemovable(state)).toThrow(AppError);
  }
});

test("a pool takes deployments while Provisioning or Active, and the check agrees", () => {
  expect(poolStates.filter(poolAcceptsDeployments)).toEqual(["Provisioning", "Active"]);
  for (const state of poolStates) {
    const pool = { name: "p", state };
    if (poolAcceptsDeployments(state)) expect(() => assertPoolAcceptsDeployments(pool)).not.toThrow();
    else expect(() => assertPoolAcceptsDeployments(pool)).toThrow(AppError);
  }
});
