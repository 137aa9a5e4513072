// The panel lives in a third-party iframe, where browsers may partition or block localStorage (Safari with
// strict settings, Firefox with cookies blocked). Reading it can even throw. When it does not work, the panel
// keeps its state in memory: the conversation then lasts for the page's lifetime instead of across reloads.

export type KV = {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
  /** True when values survive a reload. */
  readonly persistent: boolean;
};

export function memoryStore(): KV {
  const m = new Map<string, string>();
  return {
    get: (k) => m.get(k) ?? null,
    set: (k, v) => void m.set(k, v),
    remove: (k) => void m.delete(k),
    persistent: false,
  };
}

export function openStore(getStorage: () => Storage | null | undefined): KV {
  let s: Storage | null | undefined;
  try {
    s = getStorage();
    if (s) {
      const probe = "michi.probe";
      s.setItem(probe, "1");
      s.removeItem(probe);
    }
  } catch {
    s = null;
  }
  if (!s) return memoryStore();
  const storage = s;
  // A later failure (quota, a setting changed mid-session) falls back to memory for that value only.
  const mem = memoryStore();
  return {
    get(k) {
      const pending = mem.get(k);
      if (pending !== null) return pending;
      try {
        return storage.getItem(k);
      } catch {
        return null;
      }
    },
    set(k, v) {
      try {
        storage.setItem(k, v);
        mem.remove(k);
      } catch {
        mem.set(k, v);
      }
    },
    remove(k) {
      mem.remove(k);
      try {
        storage.removeItem(k);
      } catch {}
    },
    persistent: true,
  };
}
