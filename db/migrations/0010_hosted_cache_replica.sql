CREATE TABLE "response_cache_entries" (
	"key" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"deployment_id" uuid NOT NULL,
	"answer" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"stored_at_ms" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "cache" text;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "cache_saved_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "inference_logs" ADD COLUMN "served_by_endpoint" text;--> statement-breakpoint
ALTER TABLE "response_cache_entries" ADD CONSTRAINT "response_cache_entries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_cache_entries_scope_idx" ON "response_cache_entries" USING btree ("org_id","deployment_id","stored_at_ms");