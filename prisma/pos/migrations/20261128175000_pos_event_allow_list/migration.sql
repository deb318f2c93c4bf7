-- Written by hand (Prisma does not model functions and triggers).

-- The store feed's events carry an allow-list of each object's columns, the POS objects of the event catalogue
-- (`posOrder`, `posBill`, `posPayment` in subgraphs/common/src/events.ts), no longer the whole row less its token: a
-- column added to orders, bills or payments reaches no event until it is named here and there
-- (docs/decisions/events.md, "Events are typed contracts (issue 37)"). `TG_ARGV[0]` is the aggregate's name, as before.
CREATE OR REPLACE FUNCTION "pos_outbox_record"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind CONSTANT text := TG_ARGV[0];
  object jsonb;
BEGIN
  CASE kind
    WHEN 'order' THEN
      object := jsonb_build_object(
        'id', NEW.id, 'merchant_id', NEW.merchant_id, 'store_id', NEW.store_id, 'status', NEW.status,
        'total_amount', NEW.total_amount, 'order_number', NEW.order_number, 'order_type', NEW.order_type,
        'bill_id', NEW.bill_id);
    WHEN 'bill' THEN
      object := jsonb_build_object(
        'id', NEW.id, 'merchant_id', NEW.merchant_id, 'store_id', NEW.store_id, 'status', NEW.status,
        'total_amount', NEW.total_amount, 'order_id', NEW.order_id, 'bill_number', NEW.bill_number,
        'paid_amount', NEW.paid_amount, 'refunded_amount', NEW.refunded_amount);
    WHEN 'pos_payment' THEN
      object := jsonb_build_object(
        'id', NEW.id, 'merchant_id', NEW.merchant_id, 'store_id', NEW.store_id, 'status', NEW.status,
        'total_amount', NEW.total_amount, 'bill_id', NEW.bill_id, 'amount', NEW.amount, 'tip_amount', NEW.tip_amount,
        'method_type', NEW.method_type, 'payment_intent_id', NEW.payment_intent_id);
  END CASE;
  INSERT INTO "outbox_events" ("id", "event_type", "aggregate_type", "aggregate_id", "payload")
  VALUES (
    pos_outbox_ulid(),
    kind || CASE TG_OP WHEN 'INSERT' THEN '.created' ELSE '.updated' END,
    kind,
    NEW.id::text,
    jsonb_build_object(
      kind, object,
      'metadata', jsonb_build_object(
        'occurred_at', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))));
  RETURN NULL;
END
$$;
