// The autoscaling policy's optional fields, filled in once for every reader (docs/autoscaling.md).
import type { AutoscalingPolicy } from "#core/policies.ts";

export const autoscalingDefaults = {
  scale_up_delay_s: 5,
  scale_down_delay_s: 300,
  cold_start_timeout_s: 120,
  max_queued: 100,
} as const;

export type AutoscalingSettings = Required<Omit<AutoscalingPolicy, "target_tokens_per_second_per_replica">> &
  Pick<AutoscalingPolicy, "target_tokens_per_second_per_replica">;

export const withDefaults = (policy: AutoscalingPolicy): AutoscalingSettings => ({
  ...autoscalingDefaults,
  ...policy,
});
