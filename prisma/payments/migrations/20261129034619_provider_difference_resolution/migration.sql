-- AlterTable
ALTER TABLE "provider_differences" ADD COLUMN     "resolution_note" TEXT,
ADD COLUMN     "resolved_at" TIMESTAMPTZ(3),
ADD COLUMN     "resolved_by" TEXT;

-- A resolution is whole: when, by whom and what was done, or none of them.
ALTER TABLE "provider_differences" ADD CONSTRAINT "provider_differences_resolution_whole" CHECK (
  (resolved_at IS NULL) = (resolved_by IS NULL) AND (resolved_at IS NULL) = (resolution_note IS NULL)
);
