// Creates the cluster suite's databases (one per subgraph and test worker) if they do not exist yet. Tests never
// truncate: they use unique ids, so the databases can be reused run after run.
import pg from "pg";
import { postgresTestWorkers, sharedTestDatabase, subgraphNames } from "../support/environment";

const base = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432";
const admin = new pg.Client({ connectionString: `${base}/postgres` });
await admin.connect();
for (let worker = 1; worker <= postgresTestWorkers; worker++) {
  for (const subgraph of subgraphNames) {
    const name = sharedTestDatabase(subgraph, String(worker));
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  }
}
await admin.end();
console.log("cluster test databases ready");
