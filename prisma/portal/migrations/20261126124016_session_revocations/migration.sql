-- CreateTable
CREATE TABLE "session_revocations" (
    "subject" TEXT NOT NULL,
    "revoked_before" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_revocations_pkey" PRIMARY KEY ("subject")
);

-- CreateIndex
CREATE INDEX "session_revocations_revoked_before_idx" ON "session_revocations"("revoked_before");
