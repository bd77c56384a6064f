ALTER TABLE "deployments" ADD COLUMN "cached_input_price_per_million" double precision;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "cached_tokens" integer DEFAULT 0 NOT NULL;