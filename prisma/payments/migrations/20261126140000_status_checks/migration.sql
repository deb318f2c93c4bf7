-- The database refuses a status its aggregate's state machine does not know (*.machine.ts; docs/decisions.md,
-- "One state machine per aggregate"). Checked equal to the machines by schema/machines.test.ts; the POS tables have theirs since they were made.

-- payment_intents: @pos-cloud/common payment-intent.machine.ts
ALTER TABLE "payment_intents" ADD CONSTRAINT "payment_intents_status_check" CHECK ("status" IN
  ('requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'cancelled', 'cancelling'));

-- refunds: subgraphs/payments/src/modules/refunds/refund.machine.ts
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'));

-- partner_webhook_deliveries: subgraphs/payments/src/modules/webhooks/webhook-delivery.machine.ts
ALTER TABLE "partner_webhook_deliveries" ADD CONSTRAINT "partner_webhook_deliveries_status_check"
  CHECK ("status" IN ('pending', 'delivered', 'dead', 'dropped'));
