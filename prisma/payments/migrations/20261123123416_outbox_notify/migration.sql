-- Written by hand (Prisma does not model triggers): every statement that appends outbox rows notifies the
-- publishers on commit, so an event leaves at once rather than at their next poll.
CREATE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events"
FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"();
