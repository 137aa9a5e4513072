import { afterEach, describe, expect, it, vi } from "vitest";
import { createSession } from "@/widget/panel/session";
import { openStore } from "@/widget/panel/storage";

/** A Storage stand-in; `broken` makes every call throw, as Safari does for blocked third-party storage. */
function fakeStorage(
  opts: { broken?: boolean; quota?: boolean } = {},
): Storage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  const guard = () => {
    if (opts.broken) throw new DOMException("denied", "SecurityError");
  };
  return {
    data,
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    key: (i) => [...data.keys()][i] ?? null,
    getItem: (k) => {
      guard();
      return data.get(k) ?? null;
    },
    setItem: (k, v) => {
      guard();
      if (opts.quota && k !== "michi.probe") throw new DOMException("full", "QuotaExceededError");
      data.set(k, v);
    },
    removeItem: (k) => {
      guard();
      data.delete(k);
    },
  };
}

describe("panel storage", () => {
  it("persists through localStorage when it works (a reload sees the value)", () => {
    const ls = fakeStorage();
    const a = openStore(() => ls);
    expect(a.persistent).toBe(true);
    a.set("k", "v");
    expect(openStore(() => ls).get("k")).toBe("v");
  });

  it("falls back to memory when reading localStorage throws", () => {
    const store = openStore(() => {
      throw new DOMException("denied", "SecurityError");
    });
    expect(store.persistent).toBe(false);
    store.set("k", "v");
    expect(store.get("k")).toBe("v");
    store.remove("k");
    expect(store.get("k")).toBeNull();
  });

  it("falls back to memory when every storage call throws", () => {
    const store = openStore(() => fakeStorage({ broken: true }));
    expect(store.persistent).toBe(false);
    store.set("k", "v");
    expect(store.get("k")).toBe("v");
  });

  it("keeps a value it could not write (quota) in memory, newer than what storage holds", () => {
    const ls = fakeStorage({ quota: true });
    ls.data.set("k", "old");
    const store = openStore(() => ls);
    store.set("k", "new");
    expect(store.get("k")).toBe("new");
  });
});

const answer = (token: string, inMs: number) =>
  new Response(JSON.stringify({ token, expiresAt: new Date(Date.now() + inMs).toISOString() }), {
    headers: { "content-type": "application/json" },
  });

describe("visitor session", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("gets a token once, reuses it, and renews near expiry presenting the old token", async () => {
    const calls: (string | null)[] = [];
    const tokens = ["t1", "t2"];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        calls.push(new Headers(init.headers).get("authorization"));
        // t1 expires in 60 s, inside the renewal margin, so the next call renews it.
        return answer(tokens.shift()!, calls.length === 1 ? 60_000 : 3_600_000);
      }),
    );
    const session = createSession(
      "wk_test",
      openStore(() => fakeStorage()),
    );
    const [a, b] = await Promise.all([session.token(), session.token()]);
    expect([a, b]).toEqual(["t1", "t1"]);
    expect(calls).toEqual([null]); // concurrent callers share one request
    expect(await session.token()).toBe("t2");
    expect(calls).toEqual([null, "Bearer t1"]);
    expect(await session.token()).toBe("t2");
    expect(calls).toHaveLength(2);
  });

  it("keeps token and conversation across a reload when storage works", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => answer("t1", 3_600_000)),
    );
    const ls = fakeStorage();
    const first = createSession(
      "wk_test",
      openStore(() => ls),
    );
    await first.token();
    first.setConversation("c-1");
    const reloaded = createSession(
      "wk_test",
      openStore(() => ls),
    );
    expect(reloaded.conversationId()).toBe("c-1");
    expect(await reloaded.token()).toBe("t1");
    expect(fetch).toHaveBeenCalledTimes(1);
    // Another widget key on the same site has its own state.
    expect(
      createSession(
        "wk_other",
        openStore(() => ls),
      ).conversationId(),
    ).toBeUndefined();
  });

  it("works for the page's lifetime when storage is blocked, and starts fresh after a reload", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => answer("t1", 3_600_000)),
    );
    const blocked = () => fakeStorage({ broken: true });
    const session = createSession("wk_test", openStore(blocked));
    await session.token();
    session.setConversation("c-1");
    expect(session.conversationId()).toBe("c-1");
    expect(createSession("wk_test", openStore(blocked)).conversationId()).toBeUndefined();
  });

  it("forgets a token the server refuses, so the next attempt starts as a new visitor", async () => {
    const auth: (string | null)[] = [];
    const replies = [
      () => answer("t1", 10_000),
      () => new Response(JSON.stringify({ error: { code: "unauthorized", message: "no" } }), { status: 401 }),
      () => answer("t2", 3_600_000),
    ];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_u: string, init: RequestInit) => {
        auth.push(new Headers(init.headers).get("authorization"));
        return replies.shift()!();
      }),
    );
    const session = createSession(
      "wk_test",
      openStore(() => fakeStorage()),
    );
    await session.token();
    await expect(session.token()).rejects.toMatchObject({ status: 401 });
    expect(await session.token()).toBe("t2");
    expect(auth).toEqual([null, "Bearer t1", null]);
  });
});

describe("visitor session with the host page's copy", () => {
  afterEach(() => vi.unstubAllGlobals());

  /** The loader's side: what the host page's own storage holds for this widget. */
  function hostCopy(saved: string | null = null) {
    const kept: string[] = [];
    return { copy: { saved, keep: (s: string) => void kept.push(s) }, kept };
  }

  it("resumes from the host's copy when the frame's storage is refused, renewing the token it came with", async () => {
    const auth: (string | null)[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_u: string, init: RequestInit) => {
        auth.push(new Headers(init.headers).get("authorization"));
        return answer("t2", 3_600_000);
      }),
    );
    const blocked = () => fakeStorage({ broken: true });
    const { copy, kept } = hostCopy(JSON.stringify({ token: "t1", conversationId: "c-1" }));
    const session = createSession("wk_test", openStore(blocked), Date.now, copy);
    expect(session.conversationId()).toBe("c-1");
    // Same visitor: the token from the host is presented, and the renewed one is written back.
    expect(await session.token()).toBe("t2");
    expect(auth).toEqual(["Bearer t1"]);
    expect(JSON.parse(kept.at(-1)!)).toEqual({ token: "t2", conversationId: "c-1" });
  });

  it("writes the token and conversation id, and nothing else, back to the host", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => answer("t1", 3_600_000)),
    );
    const { copy, kept } = hostCopy();
    const session = createSession(
      "wk_test",
      openStore(() => fakeStorage()),
      Date.now,
      copy,
    );
    await session.token();
    session.setConversation("c-9");
    expect(kept.map((s) => JSON.parse(s))).toEqual([{ token: "t1" }, { token: "t1", conversationId: "c-9" }]);
    session.setConversation(undefined);
    expect(JSON.parse(kept.at(-1)!)).toEqual({ token: "t1" });
  });

  it("prefers the host's copy over the frame's, and ignores a copy that is not the expected shape", () => {
    const ls = fakeStorage();
    ls.data.set(
      "michi.v1.wk_test",
      JSON.stringify({ token: "old", expiresAt: Date.now() + 3_600_000, conversationId: "c-old" }),
    );
    const fromHost = createSession(
      "wk_test",
      openStore(() => ls),
      Date.now,
      hostCopy(JSON.stringify({ token: "t1", conversationId: "c-1" })).copy,
    );
    expect(fromHost.conversationId()).toBe("c-1");
    for (const junk of ["not json", "[1]", JSON.stringify({ token: 5, conversationId: "c-x" }), null]) {
      const s = createSession(
        "wk_test",
        openStore(() => ls),
        Date.now,
        hostCopy(junk).copy,
      );
      expect(s.conversationId()).toBe("c-old");
    }
  });
});
