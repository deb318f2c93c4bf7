-- CreateTable
CREATE TABLE "outbox_events" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "event_type" TEXT NOT NULL,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "retry_count" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pos_receipts" (
    "id" UUID NOT NULL,
    "merchant_id" INTEGER NOT NULL,
    "store_id" INTEGER NOT NULL,
    "payment_id" UUID NOT NULL,
    "receipt_number" TEXT NOT NULL,
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pos_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "outbox_events_status_seq_idx" ON "outbox_events"("status", "seq");

-- CreateIndex
CREATE INDEX "outbox_events_aggregate_type_aggregate_id_seq_idx" ON "outbox_events"("aggregate_type", "aggregate_id", "seq");

-- CreateIndex
CREATE INDEX "outbox_events_status_published_at_idx" ON "outbox_events"("status", "published_at");

-- CreateIndex
CREATE UNIQUE INDEX "pos_receipts_payment_id_key" ON "pos_receipts"("payment_id");

-- CreateIndex
CREATE UNIQUE INDEX "pos_receipts_store_id_receipt_number_key" ON "pos_receipts"("store_id", "receipt_number");

-- Written by hand (Prisma does not model functions and triggers).

-- A ULID (Crockford base32 of 48 bits of milliseconds and 80 random bits), the id format of the gateway's outbox
-- events too: one format for every consumer, sortable by time. The 80 bits are the fully random bytes of a v4 UUID.
CREATE FUNCTION "pos_outbox_ulid"() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet CONSTANT text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  random CONSTANT bytea := uuid_send(gen_random_uuid());
  parts CONSTANT bigint[] := ARRAY[
    floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint,
    (get_byte(random, 0)::bigint << 32) | (get_byte(random, 1)::bigint << 24) | (get_byte(random, 2)::bigint << 16)
      | (get_byte(random, 3)::bigint << 8) | get_byte(random, 4)::bigint,
    (get_byte(random, 5)::bigint << 32) | (get_byte(random, 10)::bigint << 24) | (get_byte(random, 11)::bigint << 16)
      | (get_byte(random, 12)::bigint << 8) | get_byte(random, 13)::bigint];
  widths CONSTANT int[] := ARRAY[10, 8, 8];
  ulid text := '';
  part text;
  value bigint;
BEGIN
  FOR i IN 1..3 LOOP
    value := parts[i];
    part := '';
    FOR j IN 1..widths[i] LOOP
      part := substr(alphabet, (value % 32)::int + 1, 1) || part;
      value := value / 32;
    END LOOP;
    ulid := ulid || part;
  END LOOP;
  RETURN ulid;
END
$$;

-- Every change of an order, bill or payment row appends its event in the transaction that made it, so no code path
-- that writes these tables changes one without the store feed hearing of it. The payload is the row as it is now
-- (a payment without its web-view token), under the aggregate's name; `TG_ARGV[0]` is that name.
CREATE FUNCTION "pos_outbox_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind CONSTANT text := TG_ARGV[0];
BEGIN
  INSERT INTO "outbox_events" ("id", "event_type", "aggregate_type", "aggregate_id", "payload")
  VALUES (
    pos_outbox_ulid(),
    kind || CASE TG_OP WHEN 'INSERT' THEN '.created' ELSE '.updated' END,
    kind,
    NEW.id::text,
    jsonb_build_object(
      kind, to_jsonb(NEW) - 'payment_token',
      'metadata', jsonb_build_object(
        'occurred_at', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))));
  RETURN NULL;
END
$$;

CREATE TRIGGER "orders_outbox_created" AFTER INSERT ON "orders"
FOR EACH ROW EXECUTE FUNCTION "pos_outbox_record"('order');
CREATE TRIGGER "orders_outbox_updated" AFTER UPDATE ON "orders"
FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "pos_outbox_record"('order');
CREATE TRIGGER "bills_outbox_created" AFTER INSERT ON "bills"
FOR EACH ROW EXECUTE FUNCTION "pos_outbox_record"('bill');
CREATE TRIGGER "bills_outbox_updated" AFTER UPDATE ON "bills"
FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "pos_outbox_record"('bill');
CREATE TRIGGER "payments_outbox_created" AFTER INSERT ON "payments"
FOR EACH ROW EXECUTE FUNCTION "pos_outbox_record"('pos_payment');
CREATE TRIGGER "payments_outbox_updated" AFTER UPDATE ON "payments"
FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION "pos_outbox_record"('pos_payment');

-- Every statement that appends outbox rows notifies the publishers on commit, as in the gateway's database.
CREATE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events"
FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"();

-- The database refuses an event status it does not know (Prisma does not model CHECK constraints).
ALTER TABLE "outbox_events" ADD CONSTRAINT "outbox_events_status_check" CHECK ("status" IN ('pending', 'published', 'failed'));
