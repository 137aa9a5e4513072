// The .env files `npm start` reads, in the order and precedence `next dev` uses for its own mode: a variable
// set in the real environment wins, then the first file that sets it. Without this, a newcomer's working
// `npm run dev` set-up answers nothing after `npm run build && npm start`.
import { existsSync } from "node:fs";
import path from "node:path";

/** Loads the files into process.env and returns the names of those it read. */
export function loadEnvFiles(root, mode = "production") {
  const names = [`.env.${mode}.local`, ".env.local", `.env.${mode}`, ".env"];
  // process.loadEnvFile never overrides a variable that is already set, which gives the precedence above.
  return names.filter((name) => {
    const file = path.join(root, name);
    if (!existsSync(file)) return false;
    process.loadEnvFile(file);
    return true;
  });
}
