/** The Node flags the production server runs with (see server-flags.mjs). */
export const SERVER_NODE_FLAGS: readonly string[];
