import { defineConfig } from "drizzle-kit";

// Generation only needs the schema; the app applies migrations itself at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/lib/db/schema/index.ts",
  out: "./drizzle",
});
