/** Loads .env.<mode>.local, .env.local, .env.<mode> and .env into process.env (see env-files.mjs). */
export function loadEnvFiles(root: string, mode?: string): string[];
