-- CreateTable
CREATE TABLE "outgoing_messages" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "reply_to" TEXT,
    "dedupe_key" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "outgoing_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "outgoing_messages_dedupe_key_key" ON "outgoing_messages"("dedupe_key");

-- CreateIndex
CREATE INDEX "outgoing_messages_status_next_attempt_at_idx" ON "outgoing_messages"("status", "next_attempt_at");

-- The statuses the message outbox writes; anything else is refused.
ALTER TABLE "outgoing_messages" ADD CONSTRAINT "outgoing_messages_status_check" CHECK ("status" IN ('pending', 'sent', 'failed'));
ALTER TABLE "outgoing_messages" ADD CONSTRAINT "outgoing_messages_channel_check" CHECK ("channel" IN ('email', 'sms'));
