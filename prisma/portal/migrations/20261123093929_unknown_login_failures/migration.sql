-- CreateTable
CREATE TABLE "unknown_login_failures" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "locked_at" TIMESTAMPTZ(3),

    CONSTRAINT "unknown_login_failures_pkey" PRIMARY KEY ("key")
);
