import "server-only";

// Per-process state (the database handle, the logger, limiters, caches) lives on globalThis: Next may load a
// module in several bundles, and each copy must find the one value of the process, not make its own. A slot
// names one such value; its key is `__michi<name>`, so a test can reset it by that name.

export type ProcessSlot<T> = {
  get(): T | undefined;
  set(value: T | undefined): void;
  /** The value, made by `create` the first time it is asked for (or again after it was cleared). */
  use(create: () => T): T;
};

export function processSlot<T>(name: string): ProcessSlot<T> {
  const key = `__michi${name}`;
  const g = globalThis as unknown as Record<string, T | undefined>;
  return {
    get: () => g[key],
    set: (value) => {
      g[key] = value;
    },
    use: (create) => {
      let value = g[key];
      if (value === undefined) {
        value = create();
        g[key] = value;
      }
      return value;
    },
  };
}
