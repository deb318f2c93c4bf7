-- The audit chain's head, sealed with a key derived from the master key at every append: cutting records from the
-- log's end, or removing every hash, no longer leaves a chain that verifies (a database user cannot forge the seal).
-- CreateTable
CREATE TABLE "audit_chain_head" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "first_seq" BIGINT NOT NULL,
    "seq" BIGINT,
    "hash" TEXT,
    "mac" TEXT,

    CONSTRAINT "audit_chain_head_pkey" PRIMARY KEY ("id")
);

-- The chain starts at its first hashed record (records older than the chain stay before it), or at the next record.
-- The migration cannot seal (it has no key): the head stays unsealed until the platform appends the next record.
INSERT INTO "audit_chain_head" ("id", "first_seq")
SELECT 1, COALESCE((SELECT min("seq") FROM "audit_log" WHERE "hash" IS NOT NULL), (SELECT max("seq") + 1 FROM "audit_log"), 1);
