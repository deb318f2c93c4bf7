-- The audit log becomes a readable, tamper-evident trail: who acted on what, where in the tenant hierarchy (what
-- scopes reads), the outbox event a record of another subgraph came in, and its place in the hash chain.
ALTER TABLE "audit_log" ADD COLUMN     "actor_id" TEXT,
ADD COLUMN     "actor_type" TEXT,
ADD COLUMN     "hash" TEXT,
ADD COLUMN     "merchant_id" INTEGER,
ADD COLUMN     "prev_hash" TEXT,
ADD COLUMN     "psp_id" INTEGER,
ADD COLUMN     "seq" BIGINT,
ADD COLUMN     "source_event_id" TEXT,
ADD COLUMN     "store_id" INTEGER,
ADD COLUMN     "target_id" TEXT,
ADD COLUMN     "target_type" TEXT;

-- Records written before the chain keep their order and their actor; they stay unhashed, before the chain's first link.
UPDATE "audit_log" AS a SET
  "seq" = o.seq,
  "actor_type" = CASE WHEN a."user_id" IS NULL THEN 'platform' ELSE 'user' END,
  "actor_id" = COALESCE(a."user_id"::text, a."metadata"->>'actor')
FROM (SELECT "id", row_number() OVER (ORDER BY "timestamp", "id") AS seq FROM "audit_log") AS o
WHERE a."id" = o."id";

ALTER TABLE "audit_log" ALTER COLUMN "actor_type" SET NOT NULL, ALTER COLUMN "seq" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "audit_log_seq_key" ON "audit_log"("seq");

-- CreateIndex
CREATE UNIQUE INDEX "audit_log_source_event_id_key" ON "audit_log"("source_event_id");

-- CreateIndex
CREATE INDEX "audit_log_timestamp_idx" ON "audit_log"("timestamp");

-- CreateIndex
CREATE INDEX "audit_log_actor_id_timestamp_idx" ON "audit_log"("actor_id", "timestamp");

-- CreateIndex
CREATE INDEX "audit_log_target_id_timestamp_idx" ON "audit_log"("target_id", "timestamp");

-- CreateIndex
CREATE INDEX "audit_log_merchant_id_timestamp_idx" ON "audit_log"("merchant_id", "timestamp");

-- CreateIndex
CREATE INDEX "audit_log_store_id_timestamp_idx" ON "audit_log"("store_id", "timestamp");

-- Append-only: the database itself refuses to change or remove a record, whoever asks.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER "audit_log_no_update_delete" BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();

CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "audit_log"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
