-- Reports of one millisecond had no defined latest; the sequence orders them as recorded (existing rows number in
-- their stored order).
-- AlterTable
ALTER TABLE "app_installs" ADD COLUMN     "seq" BIGSERIAL NOT NULL;
