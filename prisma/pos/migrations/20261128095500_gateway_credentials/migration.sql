-- CreateTable
CREATE TABLE "gateway_credentials" (
    "id" SERIAL NOT NULL,
    "client_id" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "gateway_credentials_pkey" PRIMARY KEY ("id")
);
