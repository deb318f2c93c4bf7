// Creates the cluster suite's databases (one per subgraph and test worker) afresh for each run. Tests never truncate
// (they use unique ids), but a database belongs to the master key that sealed its secrets: one left by an earlier
// run (of another checkout, with another key) would be refused at open.
import pg from "pg";
import { postgresTestWorkers, sharedTestDatabase, subgraphNames } from "../support/environment";

const base = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432";
const admin = new pg.Client({ connectionString: `${base}/postgres` });
await admin.connect();
for (let worker = 1; worker <= postgresTestWorkers; worker++) {
  for (const subgraph of subgraphNames) {
    const name = sharedTestDatabase(subgraph, String(worker));
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  }
}
await admin.end();
console.log("cluster test databases ready");
