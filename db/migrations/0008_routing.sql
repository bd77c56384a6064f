ALTER TABLE "inference_logs" ADD COLUMN "served_by_deployment_id" uuid;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "served_by" text;