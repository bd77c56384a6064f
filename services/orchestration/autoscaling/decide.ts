// One autoscaling decision for one deployment, from the summed load, its policy, what it wants now
// and what bounds it: pure, so every rule is tested without a clock or a provider.
//
// - The need is ceil((in flight + waiting) / target_in_flight_per_replica), or, when a tokens target is
//   set, the larger of that and ceil(tokens per second / its target); kept within min and max.
// - More replicas: added once the need has lasted scale_up_delay_s; at once from zero (requests wait)
//   and below min_replicas. Fewer: once fewer have sufficed for scale_down_delay_s, down to the
//   largest need seen meanwhile (so a dip does not stop replicas a burst needs again).
// - A scale-up is bounded by the pool's max_cost_per_hour, its size and the provider's capacity; the
//   reason says which one stopped it.

import type { DeploymentLoad } from "#core/ports/load-store.ts";
import type { AutoscalingSettings } from "./defaults.ts";

/** What the autoscaler remembers of one deployment between passes (in the leader's memory). */
export interface Window {
  upSince?: number | undefined;
  downSince?: number | undefined;
  /** The largest need seen since downSince. */
  peak?: number | undefined;
  /** The last bound reported, so a blocked scale-up is recorded once, not every pass. */
  lastBlocked?: string | undefined;
}

export interface Bounds {
  /** Replicas the pool's max_cost_per_hour still pays for in all, with why; undefined: no bound. */
  cost?: { replicas: number; why: string } | undefined;
  /** Replicas the provider has room for in all; undefined: no bound known. */
  capacity?: { replicas: number; why: string } | undefined;
  /** Replicas the pool's size leaves to this deployment; undefined: the pool has no size. */
  size?: { replicas: number; why: string } | undefined;
}

export interface DecisionInput {
  policy: AutoscalingSettings;
  /** The replica count wanted now (the deployment's `replicas`). */
  current: number;
  load: DeploymentLoad;
  nowMs: number;
  window: Window;
  bounds: Bounds;
}

export type Decision =
  | { kind: "scale"; to: number; reason: string }
  /** A scale-up is due but a bound stops it: recorded once with its reason, the count stays. */
  | { kind: "blocked"; reason: string }
  | { kind: "none" };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function needOf(policy: AutoscalingSettings, load: DeploymentLoad): number {
  const demand = load.inFlight + load.queued;
  let need = Math.ceil(demand / policy.target_in_flight_per_replica);
  if (policy.target_tokens_per_second_per_replica)
    need = Math.max(need, Math.ceil(load.tokensPerSecond / policy.target_tokens_per_second_per_replica));
  return need;
}

/** "12 in flight and 3 waiting over 2 replicas, target 4" */
export function describeLoad(policy: AutoscalingSettings, load: DeploymentLoad, replicas: number): string {
  const waiting = load.queued > 0 ? ` and ${load.queued} waiting` : "";
  const tokens =
    policy.target_tokens_per_second_per_replica && load.tokensPerSecond > 0
      ? `, ${Math.round(load.tokensPerSecond)} tokens/s (target ${policy.target_tokens_per_second_per_replica} per replica)`
      : "";
  return `${load.inFlight} in flight${waiting} over ${plural(replicas, "replica")}, target ${policy.target_in_flight_per_replica}${tokens}`;
}

export function decide(input: DecisionInput): Decision {
  const { policy, current, load, nowMs, window, bounds } = input;
  const need = needOf(policy, load);
  const wanted = Math.min(policy.max_replicas, Math.max(policy.min_replicas, need));
  const loadText = describeLoad(policy, load, current);

  if (wanted > current) {
    window.downSince = undefined;
    window.peak = undefined;
    const fromZero = current === 0;
    const minDrives = need < policy.min_replicas;
    if (!fromZero && current >= policy.min_replicas) {
      window.upSince ??= nowMs;
      if (nowMs - window.upSince < policy.scale_up_delay_s * 1000) return { kind: "none" };
    }
    let to = wanted;
    const stops: string[] = [];
    for (const bound of [bounds.cost, bounds.capacity, bounds.size]) {
      if (bound && bound.replicas < to) {
        to = Math.max(current, bound.replicas);
        stops.push(bound.why);
      }
    }
    const why = minDrives
      ? `min_replicas is ${policy.min_replicas}`
      : fromZero
        ? `${plural(load.queued + load.inFlight, "request")} waiting at zero replicas`
        : loadText;
    if (to === current) {
      const reason = `wanted ${wanted} replicas (${why}) but ${stops.join("; ")}`;
      if (window.lastBlocked === reason) return { kind: "none" };
      window.lastBlocked = reason;
      return { kind: "blocked", reason };
    }
    window.upSince = undefined;
    window.lastBlocked = undefined;
    const limited = stops.length > 0 ? `; limited to ${to}: ${stops.join("; ")}` : "";
    return { kind: "scale", to, reason: `scaled up from ${current} to ${to}: ${why}${limited}` };
  }

  window.upSince = undefined;
  window.lastBlocked = undefined;
  if (wanted < current) {
    if (current > policy.max_replicas)
      return { kind: "scale", to: policy.max_replicas, reason: `max_replicas is ${policy.max_replicas}` };
    window.downSince ??= nowMs;
    window.peak = Math.max(window.peak ?? wanted, wanted);
    const heldMs = nowMs - window.downSince;
    if (heldMs < policy.scale_down_delay_s * 1000) return { kind: "none" };
    const to = window.peak;
    window.downSince = undefined;
    window.peak = undefined;
    if (to >= current) return { kind: "none" };
    const seconds = Math.round(heldMs / 1000);
    const reason =
      to === 0
        ? `scaled to zero: no requests for ${seconds} s`
        : `scaled down from ${current} to ${to}: ${loadText} for ${seconds} s`;
    return { kind: "scale", to, reason };
  }
  window.downSince = undefined;
  window.peak = undefined;
  return { kind: "none" };
}
