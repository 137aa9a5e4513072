/** What breaks the folder graph's rules under `root`, one line each (see folder-graph.mjs). */
export function folderGraphFaults(root: string): string[];
