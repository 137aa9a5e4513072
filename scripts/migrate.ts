// `npm run db:migrate`: applies migrations to DATABASE_URL (or the embedded database) and exits.
import { closeDb, getDb } from "../src/lib/db";
import { migrate } from "../src/lib/db/migrate";

const db = await getDb();
const applied = await migrate(db);
console.log(`migrations: ${applied} applied (${db.kind})`);
await closeDb();
