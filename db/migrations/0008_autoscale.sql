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
ALTER TABLE "deployment_transitions" ADD COLUMN "from_replicas" integer;--> statement-breakpoint
ALTER TABLE "deployment_transitions" ADD COLUMN "to_replicas" integer;