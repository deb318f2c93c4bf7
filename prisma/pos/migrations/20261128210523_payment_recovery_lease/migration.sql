-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "recovery_locked_until" TIMESTAMPTZ(3);

-- Written by hand (Prisma does not model triggers). A cash payment is recorded pending only for the time of its
-- gateway call (docs/decisions/pos.md, "No gateway call inside a POS transaction (issue 37)"): the store feed hears
-- of it when it completes (or fails), as before, not of that moment. A recovery pass taking its lease changes
-- nothing a reader sees either.
DROP TRIGGER "payments_outbox_created" ON "payments";
CREATE TRIGGER "payments_outbox_created" AFTER INSERT ON "payments"
FOR EACH ROW WHEN (NEW.method_type <> 'CASH' OR NEW.status <> 'pending')
EXECUTE FUNCTION "pos_outbox_record"('pos_payment');
DROP TRIGGER "payments_outbox_updated" ON "payments";
CREATE TRIGGER "payments_outbox_updated" AFTER UPDATE ON "payments"
FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.* AND OLD.recovery_locked_until IS NOT DISTINCT FROM NEW.recovery_locked_until)
EXECUTE FUNCTION "pos_outbox_record"('pos_payment');
