-- CreateTable
CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_jwk" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "signing_keys_purpose_created_at_idx" ON "signing_keys"("purpose", "created_at");
