// The embed loader, bundled to public/widget.js (budget: 2 KB gzipped, asserted by a test).
// <script src="https://HOST/widget.js" data-michi-key="KEY" async></script>
// It draws a launcher inside a shadow root, asks the platform for the launcher's colour and words,
// and creates the panel iframe only on first open. It talks to the panel only by postMessage, checking the
// sender's window and origin. Every script tag is its own widget; a page may carry several keys.

type Cmd = "open" | "close" | "toggle";
type Widget = { k: string; run(cmd: Cmd): void; on(): boolean };
type Api = ((cmd: Cmd, key?: string) => void) & { w?: Widget[]; q?: [Cmd, string?][] };
type Launcher = {
  color: string;
  onColor: string;
  position: string;
  label: string;
  closeLabel: string;
  title: string;
};

const CHAT = "M4 5h16v11H9l-5 4z";
const CROSS = "M6 6l12 12M18 6L6 18";
const STYLE =
  ":host{all:initial!important}button,iframe{position:fixed;z-index:2147483000;bottom:20px;right:20px}.l{left:20px;right:auto}" +
  "button{width:56px;height:56px;border:0;border-radius:50%;cursor:pointer;display:grid;place-items:center;box-shadow:0 4px 14px #0004;transition:transform .15s}" +
  "button:hover{transform:scale(1.06)}button:focus-visible{outline:3px solid #fff;box-shadow:0 0 0 6px #111}" +
  "iframe{bottom:88px;width:380px;height:min(640px,calc(100% - 108px));border:0;border-radius:16px;background:#fff;box-shadow:0 8px 32px #0005}" +
  "@media (max-width:479px){iframe{inset:0;width:100%;height:100%;border-radius:0}}" +
  "@media (prefers-reduced-motion:reduce){button{transition:none}}";

((d, w) => {
  const script = d.currentScript as HTMLScriptElement | null;
  const data = script?.dataset;
  const key = data?.michiKey;
  if (!script || !data || !key) return;
  const base = new URL(script.src).origin;
  const api: Api =
    (w.michi as Api | undefined)?.w !== undefined
      ? (w.michi as Api)
      : Object.assign(
          (cmd: Cmd, k?: string) => {
            // Widgets whose launcher was removed from the page drop out; without a key the first one answers.
            api.w = api.w?.filter((x) => x.on());
            for (const x of api.w ?? []) if (k ? x.k === k : x === api.w?.[0]) x.run(cmd);
          },
          { w: [] as Widget[], q: (w.michi as Api | undefined)?.q ?? [] },
        );
  w.michi = api;

  let cfg: Launcher | undefined;
  let frame: HTMLIFrameElement | undefined;
  let isOpen = false;
  let pending: Cmd | undefined;
  let wantFocus = false;
  const host = d.createElement("michi-chat");
  // Open, not closed: a closed root protects nothing from a page that runs scripts anyway, and an open one
  // lets accessibility tools and tests reach the launcher.
  const root = host.attachShadow({ mode: "open" });
  const button = d.createElement("button");
  const post = (msg: object) => frame?.contentWindow?.postMessage({ michi: key, ...msg }, base);
  const icon = (p: string) => {
    button.innerHTML = `<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true"><path d="${p}" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/></svg>`;
  };

  const draw = () => {
    if (frame) frame.hidden = !isOpen;
    button.setAttribute("aria-expanded", String(isOpen));
    button.setAttribute("aria-label", isOpen ? cfg!.closeLabel : cfg!.label);
    icon(isOpen ? CROSS : CHAT);
  };
  const set = (open: boolean, focus?: boolean) => {
    if (!cfg) {
      pending = open ? "open" : "close";
      return;
    }
    if (open === isOpen) return;
    isOpen = open;
    if (open && !frame) {
      frame = d.createElement("iframe");
      frame.title = cfg.title;
      frame.className = button.className;
      const q = new URLSearchParams({ p: location.origin + location.pathname });
      if (data.michiLang) q.set("lang", data.michiLang);
      frame.src = `${base}/w/${encodeURIComponent(key)}?${q}`;
      root.append(frame);
    }
    draw();
    if (open && focus) {
      wantFocus = true;
      frame?.focus();
      post({ type: "open", focus: true });
    }
    // Focus goes back to the launcher when it was inside the widget, so keyboard users do not get lost.
    if (!open && (focus || d.activeElement === host)) button.focus();
    w.dispatchEvent(new CustomEvent(`michi:${open ? "open" : "close"}`, { detail: { key } }));
  };
  const widget: Widget = {
    k: key,
    run: (cmd) =>
      set(cmd === "toggle" ? !(cfg ? isOpen : pending === "open") : cmd === "open", cmd !== "close"),
    on: () => !cfg || host.isConnected,
  };
  api.w?.push(widget);

  w.addEventListener("message", (e) => {
    const m = e.data as { michi?: string; type?: string } | null;
    if (e.origin !== base || !frame || e.source !== frame.contentWindow || m?.michi !== key) return;
    if (m.type === "close") set(false, true);
    // A frame focused while still blank can lose focus when its page arrives from another origin, so focus
    // is handed over again once the panel says it is ready.
    if (m.type === "ready" && isOpen) {
      if (wantFocus) frame.focus();
      post({ type: "open", focus: wantFocus });
    }
  });
  button.onclick = () => set(!isOpen, true);

  const q = new URLSearchParams();
  if (data.michiLang) q.set("lang", data.michiLang);
  fetch(`${base}/w/${encodeURIComponent(key)}/config?${q}`)
    .then((r) => (r.ok ? r.json() : Promise.reject()))
    .then((c: Launcher) => {
      cfg = c;
      const pos = data.michiPosition || c.position;
      button.className = pos === "left" ? "l" : "";
      button.style.background = c.color;
      button.style.color = c.onColor;
      button.type = "button";
      // A constructed sheet is not subject to the host page's style-src; older browsers get a <style>.
      if (root.adoptedStyleSheets) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(STYLE);
        root.adoptedStyleSheets = [sheet];
      } else root.append(Object.assign(d.createElement("style"), { textContent: STYLE }));
      root.append(button);
      draw();
      d.body.append(host);
      const start = data.michiOpen;
      // Starting open would cover a phone's whole screen, so data-michi-open applies to wider screens only.
      if ((start === "" || start === "true") && matchMedia("(min-width:480px)").matches) set(true);
      if (pending) widget.run(pending);
      // Calls made before this script arrived: those for this key, and the keyless ones by the first widget.
      for (const [cmd, k] of api.q ?? []) if (k ? k === key : widget === api.w?.[0]) widget.run(cmd);
    })
    .catch(() => {
      // Unknown key, suspended tenant or a site that is not allowed: no launcher at all.
    });
})(document, window as unknown as Window & { michi?: unknown });

export {};
