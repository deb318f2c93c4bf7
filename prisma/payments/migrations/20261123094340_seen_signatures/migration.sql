-- CreateTable
CREATE TABLE "seen_signatures" (
    "signature" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "seen_signatures_pkey" PRIMARY KEY ("signature")
);

-- CreateIndex
CREATE INDEX "seen_signatures_expires_at_idx" ON "seen_signatures"("expires_at");
