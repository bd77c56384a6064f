CREATE TABLE "budget_alerts" (
	"org_id" uuid NOT NULL,
	"budget" text NOT NULL,
	"period" text NOT NULL,
	"threshold_percent" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_alerts_org_id_budget_period_threshold_percent_pk" PRIMARY KEY("org_id","budget","period","threshold_percent")
);
--> statement-breakpoint
CREATE TABLE "deployment_load_reports" (
	"deployment_id" uuid NOT NULL,
	"reporter_id" text NOT NULL,
	"in_flight" integer DEFAULT 0 NOT NULL,
	"queued" integer DEFAULT 0 NOT NULL,
	"tokens_per_second" double precision DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "deployment_load_reports_deployment_id_reporter_id_pk" PRIMARY KEY("deployment_id","reporter_id")
);
--> statement-breakpoint
CREATE TABLE "inference_log_hours" (
	"org_id" uuid NOT NULL,
	"deployment_id" uuid,
	"requests" integer DEFAULT 0 NOT NULL,
	"errors_4xx" integer DEFAULT 0 NOT NULL,
	"errors_5xx" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_max_ms" double precision DEFAULT 0 NOT NULL,
	"ttft_buckets" integer[] NOT NULL,
	"ttft_max_ms" double precision DEFAULT 0 NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	CONSTRAINT "inference_log_hours_key" UNIQUE NULLS NOT DISTINCT("org_id","hour","deployment_id")
);
--> statement-breakpoint
CREATE TABLE "inference_log_key_hours" (
	"api_key_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"deployment_id" uuid,
	"requests" integer DEFAULT 0 NOT NULL,
	"errors_4xx" integer DEFAULT 0 NOT NULL,
	"errors_5xx" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_max_ms" double precision DEFAULT 0 NOT NULL,
	"ttft_buckets" integer[] NOT NULL,
	"ttft_max_ms" double precision DEFAULT 0 NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	CONSTRAINT "inference_log_key_hours_key" UNIQUE NULLS NOT DISTINCT("org_id","api_key_id","hour","deployment_id")
);
--> statement-breakpoint
CREATE TABLE "inference_log_key_minutes" (
	"api_key_id" uuid NOT NULL,
	"org_id" uuid NOT NULL,
	"deployment_id" uuid,
	"requests" integer DEFAULT 0 NOT NULL,
	"errors_4xx" integer DEFAULT 0 NOT NULL,
	"errors_5xx" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_max_ms" double precision DEFAULT 0 NOT NULL,
	"ttft_buckets" integer[] NOT NULL,
	"ttft_max_ms" double precision DEFAULT 0 NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	CONSTRAINT "inference_log_key_minutes_key" UNIQUE NULLS NOT DISTINCT("org_id","api_key_id","minute","deployment_id")
);
--> statement-breakpoint
CREATE TABLE "inference_log_minutes" (
	"org_id" uuid NOT NULL,
	"deployment_id" uuid,
	"requests" integer DEFAULT 0 NOT NULL,
	"errors_4xx" integer DEFAULT 0 NOT NULL,
	"errors_5xx" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"latency_buckets" integer[] NOT NULL,
	"latency_max_ms" double precision DEFAULT 0 NOT NULL,
	"ttft_buckets" integer[] NOT NULL,
	"ttft_max_ms" double precision DEFAULT 0 NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	CONSTRAINT "inference_log_minutes_key" UNIQUE NULLS NOT DISTINCT("org_id","minute","deployment_id")
);
--> statement-breakpoint
CREATE TABLE "spend_daily" (
	"org_id" uuid NOT NULL,
	"api_key_id" uuid,
	"deployment_id" uuid,
	"day" date NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_daily_key" UNIQUE NULLS NOT DISTINCT("org_id","api_key_id","deployment_id","day")
);
--> statement-breakpoint
DROP INDEX "policies_org_type_key";--> statement-breakpoint
ALTER TABLE "deployment_transitions" ADD COLUMN "from_replicas" integer;--> statement-breakpoint
ALTER TABLE "deployment_transitions" ADD COLUMN "to_replicas" integer;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "input_price_per_million" double precision;--> statement-breakpoint
ALTER TABLE "deployments" ADD COLUMN "output_price_per_million" double precision;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "cost" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "ttft_ms" double precision;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "served_by_deployment_id" uuid;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "served_by" text;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "api_key_id" uuid;--> statement-breakpoint
ALTER TABLE "pools" ADD COLUMN "size" integer;--> statement-breakpoint
ALTER TABLE "budget_alerts" ADD CONSTRAINT "budget_alerts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_daily" ADD CONSTRAINT "spend_daily_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spend_daily_org_day_idx" ON "spend_daily" USING btree ("org_id","day");--> statement-breakpoint
ALTER TABLE "policies" ADD CONSTRAINT "policies_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "policies_api_key_type_key" ON "policies" USING btree ("api_key_id","policy_type") WHERE "policies"."api_key_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "policies_org_type_key" ON "policies" USING btree ("org_id","policy_type") WHERE "policies"."deployment_id" is null and "policies"."api_key_id" is null;