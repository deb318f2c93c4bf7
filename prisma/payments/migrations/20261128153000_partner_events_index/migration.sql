-- GET /v1/events reads a partner's published events in written order: without this, every page scanned all published
-- events of every partner (the partner is inside the payload's metadata, so the index is on that expression).
CREATE INDEX "outbox_events_partner_seq_idx" ON "outbox_events" ((("payload" -> 'metadata' ->> 'client_partner_id')), "seq")
WHERE "status" = 'published';
