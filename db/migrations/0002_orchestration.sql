CREATE TABLE "pools" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"owner_type" text DEFAULT 'org' NOT NULL,
	"owner_id" text NOT NULL,
	"provider" text NOT NULL,
	"allowed_gpu_types" text[] DEFAULT '{}' NOT NULL,
	"max_cost_per_hour" double precision,
	"is_dedicated" boolean DEFAULT false NOT NULL,
	"provider_pool_id" text,
	"scheduling_policy" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"state" text DEFAULT 'Provisioning' NOT NULL,
	"failure_reason" text,
	"node_token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"pool_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"provider_instance_id" text NOT NULL,
	"gpu_allocated" integer DEFAULT 0 NOT NULL,
	"vcpu_allocated" integer DEFAULT 0 NOT NULL,
	"ram_gb_allocated" integer DEFAULT 0 NOT NULL,
	"health_score" integer DEFAULT 100 NOT NULL,
	"state" text DEFAULT 'READY' NOT NULL,
	"expose_url" text,
	"last_heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "models" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"backend" text NOT NULL,
	"artifact_uri" text,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"model_version" text,
	"pool_id" uuid NOT NULL,
	"engine" text NOT NULL,
	"workload_type" text DEFAULT 'inference' NOT NULL,
	"inference_model" text,
	"image" text NOT NULL,
	"replicas" integer DEFAULT 1 NOT NULL,
	"gpu_per_replica" integer DEFAULT 0 NOT NULL,
	"configuration" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"owner_id" text,
	"desired_state" text DEFAULT 'running' NOT NULL,
	"status" text DEFAULT 'DEPLOYING' NOT NULL,
	"failure_reason" text,
	"estimated_cost_per_hour" double precision,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "replicas" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"deployment_id" uuid NOT NULL,
	"index" integer NOT NULL,
	"state" text DEFAULT 'PENDING' NOT NULL,
	"endpoint" text,
	"provider_instance_id" text,
	"restarts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"started_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployment_transitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"deployment_id" uuid NOT NULL,
	"from_state" text,
	"to_state" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deployment_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"deployment_id" uuid NOT NULL,
	"replica" integer NOT NULL,
	"stream" text NOT NULL,
	"line" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "pools" ADD CONSTRAINT "pools_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "nodes" ADD CONSTRAINT "nodes_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "models" ADD CONSTRAINT "models_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_pool_id_pools_id_fk" FOREIGN KEY ("pool_id") REFERENCES "public"."pools"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "replicas" ADD CONSTRAINT "replicas_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_transitions" ADD CONSTRAINT "deployment_transitions_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_logs" ADD CONSTRAINT "deployment_logs_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pools_org_name_key" ON "pools" USING btree ("org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "pools_node_token_key" ON "pools" USING btree ("node_token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "nodes_pool_instance_key" ON "nodes" USING btree ("pool_id","provider_instance_id");--> statement-breakpoint
CREATE UNIQUE INDEX "models_org_name_version_key" ON "models" USING btree ("org_id","name","version");--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_org_name_live_key" ON "deployments" USING btree ("org_id","name") WHERE "deployments"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "replicas_deployment_index_key" ON "replicas" USING btree ("deployment_id","index");--> statement-breakpoint
CREATE INDEX "deployment_transitions_deployment_idx" ON "deployment_transitions" USING btree ("deployment_id","created_at");--> statement-breakpoint
CREATE INDEX "deployment_logs_deployment_idx" ON "deployment_logs" USING btree ("deployment_id","id");