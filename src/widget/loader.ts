// The embed loader, bundled to public/widget.js (budget: 2 KB gzipped, asserted by a test).
// <script src="https://HOST/widget.js" data-michi-key="KEY" async></script>
// It draws a launcher inside a shadow root and creates the panel iframe only on first open. It talks to the
// platform only through frames and postMessage, checking the sender's window and origin. Every script tag is
// its own widget; a page may carry several keys.
//
// Host pages are hostile by accident (tests/e2e/widget-hostile.spec.ts): they wrap or block window.fetch,
// replace Promise, JSON.stringify or Array.prototype methods with old polyfills (Prototype.js), run a strict
// CSP (connect-src 'self', Trusted Types) and put transform, filter or zoom on <body>. So the loader uses
// none of fetch, Promise, JSON or Array methods: the launcher's settings come from a hidden frame on the
// platform origin (/w/KEY/config?o=ORIGIN), which posts them to this page; and the launcher attaches to <html>
// when <body> would make position:fixed relative to itself.

type Cmd = "open" | "close" | "toggle" | "offset";
type Widget = { k: string; run(cmd: Cmd, arg?: unknown): void; on(): boolean };
type Api = ((cmd: Cmd, a?: unknown, b?: unknown) => void) & { w?: Widget[]; q?: unknown[][] };
type Launcher = {
  color: string;
  onColor: string;
  position: string;
  label: string;
  closeLabel: string;
  unread: string;
  title: string;
};
type Msg = { michi?: unknown; type?: unknown; c?: Launcher; t?: string; s?: string } | null;

const CHAT = "M4 5h16v11H9l-5 4z";
const CROSS = "M6 6l12 12M18 6L6 18";
const STYLE =
  ":host{all:initial!important}button,iframe{border:0;position:fixed;z-index:2147483000;bottom:calc(20px + var(--o));right:20px}.l{left:20px;right:auto}" +
  "button{width:56px;height:56px;border-radius:50%;cursor:pointer;display:grid;place-items:center;box-shadow:0 4px 14px #0004}" +
  "button:focus-visible{outline:3px solid #fff;box-shadow:0 0 0 6px #111}" +
  "svg{width:26px;height:26px}path{fill:none;stroke:currentColor;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}" +
  "i{position:absolute;top:0;right:0;width:12px;height:12px;border-radius:50%;background:#d92d20;border:2px solid #fff}" +
  "iframe{bottom:calc(88px + var(--o));width:380px;height:min(640px,100% - 108px - var(--o));border-radius:16px;background:#fff;box-shadow:0 8px 32px #0005}" +
  // An iframe is a replaced element: height:auto would be its intrinsic 150 px, not the space between the insets.
  "@media(max-width:479px){iframe,iframe.l{inset:0 0 var(--o);width:100%;height:calc(100% - var(--o));border-radius:0}}";

((d, w) => {
  const script = d.currentScript as HTMLScriptElement;
  // A key implies the script and its dataset; the one check keeps the loader inside its size budget.
  const data = script?.dataset as DOMStringMap;
  const key = data?.michiKey;
  if (!key) return;
  const base = new URL(script.src).origin;
  const path = `${base}/w/${encodeURIComponent(key)}`;
  const prev = w.michi as Api | undefined;
  const api: Api = prev?.w
    ? prev
    : Object.assign(
        (cmd: Cmd, a?: unknown, b?: unknown) => {
          // Widgets whose launcher was removed from the page drop out; without a key the first one answers.
          const k = (cmd[1] as string) < "l" ? b : a;
          const all = api.w as Widget[];
          const live: Widget[] = [];
          api.w = live;
          for (let i = 0; i < all.length; i++) {
            const x = all[i] as Widget;
            if (!x.on()) continue;
            live[live.length] = x;
            if (k ? x.k === k : live.length < 2) x.run(cmd, a);
          }
        },
        { w: [] as Widget[], q: prev?.q ?? [] },
      );
  w.michi = api;

  let cfg: Launcher | undefined;
  let frame: HTMLIFrameElement | undefined;
  let isOpen = false;
  let ready = false;
  let unread = false;
  let pending: Cmd | undefined;
  let wantFocus = false;
  let idt: unknown;
  const host = d.createElement("michi-chat");
  // Open, not closed: a closed root protects nothing from a page that runs scripts anyway, and an open one
  // lets accessibility tools and tests reach the launcher.
  const root = host.attachShadow({ mode: "open" });
  const button = d.createElement("button");
  const NS = "http://www.w3.org/2000/svg";
  const svg = d.createElementNS(NS, "svg");
  const icon = d.createElementNS(NS, "path");
  const dot = d.createElement("i");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.append(icon);
  button.append(svg, dot);
  // The panel is only written to once it said it is ready: before that the frame still holds about:blank of
  // this page's origin, and a message addressed to the platform origin would only log a console error.
  const post = (msg: object) => ready && frame?.contentWindow?.postMessage({ michi: key, ...msg }, base);
  // Always set (0 by default), so the stylesheet reads var(--o) without a fallback.
  const offset = (v: unknown) => host.style.setProperty("--o", `${Math.max(0, +(v as string)) || 0}px`);
  offset(data.michiOffset);

  const query = (k: string, v: string) =>
    // An empty lang reads as none on the server (pickLang), so it is always sent.
    new URLSearchParams({ [k]: v, lang: data.michiLang || "" });
  // Only called once the settings have arrived (by start, and by set and the panel's messages after it).
  const draw = () => {
    const c = cfg as Launcher;
    if (frame) frame.hidden = !isOpen;
    // ARIA reflection (Baseline, widely available) writes the attributes, in fewer bytes.
    button.ariaExpanded = "" + isOpen;
    button.ariaLabel = isOpen ? c.closeLabel : unread ? c.unread : c.label;
    icon.setAttribute("d", isOpen ? CROSS : CHAT);
    dot.hidden = !unread;
  };
  const set = (open: boolean, focus?: boolean) => {
    const cmd = open ? "open" : "close";
    if (!cfg) {
      pending = cmd;
      return;
    }
    if (open === isOpen) return;
    isOpen = open;
    if (open) unread = false;
    if (open && !frame) {
      frame = d.createElement("iframe");
      frame.title = cfg.title;
      frame.className = button.className;
      frame.src = `${path}?${query("p", location.origin + location.pathname)}`;
      root.append(frame);
    }
    draw();
    if (open && focus) {
      wantFocus = true;
      (frame as HTMLIFrameElement).focus();
      post({ type: cmd, focus: true });
    }
    // Focus goes back to the launcher when it was inside the widget, so keyboard users do not get lost.
    if (!open && (focus || d.activeElement === host)) button.focus();
    w.dispatchEvent(new CustomEvent(`michi:${cmd}`, { detail: { key } }));
  };
  const widget: Widget = {
    k: key,
    run: (cmd, arg) =>
      (cmd[1] as string) < "l"
        ? cmd < "o"
          ? // biome-ignore lint/suspicious/noAssignInExpressions: the loader's byte budget (see docs/widget.md)
            (idt = arg)
          : offset(arg)
        : set(cmd === "toggle" ? !(cfg ? isOpen : pending === "open") : cmd === "open", cmd !== "close"),
    on: () => !cfg || host.isConnected,
  };
  const list = api.w as Widget[];
  list[list.length] = widget;

  // A fixed element inside a transformed, filtered or zoomed <body> is placed and painted relative to the
  // body, not the viewport; <html> is left alone by such pages.
  const b = d.body;
  const cs = b && getComputedStyle(b);
  const trapped =
    !cs ||
    cs.transform + cs.filter + cs.perspective + cs.backdropFilter + cs.contain + cs.willChange !==
      "nonenonenonenonenoneauto" ||
    (cs.zoom && cs.zoom !== "1");
  (trapped ? d.documentElement : b).append(host);
  // A constructed sheet is not subject to the host page's style-src; older browsers get a <style>.
  if (root.adoptedStyleSheets) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
    root.adoptedStyleSheets = [sheet];
  } else root.append(Object.assign(d.createElement("style"), { textContent: STYLE }));

  const start = (c: Launcher) => {
    cfg = c;
    button.className = (data.michiPosition || c.position) === "left" ? "l" : "";
    button.style.background = c.color;
    button.style.color = c.onColor;
    root.append(button);
    draw();
    const open = data.michiOpen;
    // Starting open would cover a phone's whole screen, so data-michi-open applies to wider screens only
    // (innerWidth is the width the stylesheet's media query reads).
    if ((open === "" || open === "true") && innerWidth > 479) set(true);
    if (pending) widget.run(pending);
    // Calls made before this script arrived: those for this key, and the keyless ones by the first widget.
    const q = api.q ?? [];
    for (let i = 0; i < q.length; i++) {
      const c = q[i] as unknown[];
      const k = ((c[0] as string)[1] as string) < "l" ? c[2] : c[1];
      if (k ? k === key : widget === (api.w as Widget[])[0]) widget.run(c[0] as Cmd, c[1]);
    }
  };

  // The launcher's settings. An unknown key, a suspended business or a site not on the list gets a page that
  // posts nothing (or none at all, by frame-ancestors): then there is no launcher, and the host goes away.
  const cf = d.createElement("iframe");
  cf.hidden = true;
  cf.src = `${path}/config?${query("o", location.origin)}`;
  cf.onload = () => setTimeout(() => cfg || host.remove(), 3000);
  root.append(cf);

  w.addEventListener("message", (e) => {
    const m = e.data as Msg;
    if (e.origin !== base || m?.michi !== key) return;
    // The config frame posts the launcher's settings, or, on a site missing from the business's domains,
    // the one sentence that tells the site's developer what to add (instead of a bare CSP error).
    if (!cfg && e.source === cf.contentWindow) {
      if (m.c) {
        cf.remove();
        start(m.c);
      } else console.warn(m.t);
      return;
    }
    if (!frame || e.source !== frame.contentWindow) return;
    // Any message from the panel means its page has loaded, so posting to it is safe from then on.
    ready = true;
    const t = m.type;
    // The visitor's token and conversation id, kept in this page's own storage: the frame's may be
    // partitioned or refused. "s" with a value stores it; without, the panel asks for it at start. Storage
    // refused here too means no answer, and the panel goes on with its own after a short wait.
    if (t === "s") {
      const k = `michi.${key}`;
      try {
        if (m.s) localStorage[k] = m.s;
        else post({ type: t, i: idt, s: localStorage[k] });
      } catch {}
    }
    if (t === "close") set(false, true);
    // An answer is unread only while the panel is closed (opening it clears the mark).
    if (t === "answer") {
      unread = !isOpen;
      draw();
    }
    // A frame focused while still blank can lose focus when its page arrives from another origin, so focus
    // is handed over again once the panel says it is ready.
    if (t === "ready" && isOpen) {
      if (wantFocus) frame.focus();
      post({ type: "open", focus: wantFocus });
    }
  });
  button.onclick = () => set(!isOpen, true);
})(document, window as unknown as Window & { michi?: unknown });

export {};
