import { join } from "node:path";

/** The repository's root directory, where `prisma/`, `schema/` and `.data/` live. */
export const repositoryRoot = join(import.meta.dirname, "..", "..", "..");
