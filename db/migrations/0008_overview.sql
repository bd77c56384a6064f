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
ALTER TABLE "inference_logs" ADD COLUMN "ttft_ms" double precision;