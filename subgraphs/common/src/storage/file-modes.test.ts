import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { afterAll, describe, expect, it } from "vitest";
import { openSubgraphDatabase } from "./subgraph-database";

/** Paths under `dir` (and itself) that group or others may read, write or enter, with their modes. */
function openToOthers(dir: string): string[] {
  const stat = lstatSync(dir);
  const here = (stat.mode & 0o077) !== 0 ? [`${(stat.mode & 0o777).toString(8)} ${dir}`] : [];
  if (!stat.isDirectory()) return here;
  return [...here, ...readdirSync(dir).flatMap((entry) => openToOthers(join(dir, entry)))];
}

// The probe counted 968 of about 1,090 files of each embedded database at mode 0666: initdb's files, copied into
// every new database from the installation's empty cluster.
describe("an embedded database's files", () => {
  const dir = temporaryDirectory("pos-cloud-modes-");
  afterAll(() => dir.remove());

  it("are owner-only from its creation, and stay so as it grows", async () => {
    const db = await openSubgraphDatabase("pos", { dataDir: dir.path });
    await db.exec("CREATE TABLE modes_probe (id int); INSERT INTO modes_probe SELECT generate_series(1, 1000)");
    await db.close();
    expect(openToOthers(join(dir.path, "pos"))).toEqual([]);
  });
});
