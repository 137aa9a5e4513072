/** @jsxImportSource preact */
// The panel's entry, bundled to public/w/panel.<hash>.js. Its config arrives as a JSON data block written by
// the /w/[key] route; the tenant colours go in through the CSSOM, which the page's style-src does not cover.
import { render } from "preact";
import type { PanelConfig } from "../public-config";
import { App } from "./App";
import { createBridge } from "./bridge";
import { createSession } from "./session";
import { openStore } from "./storage";

const node = document.getElementById("michi-config");
const app = document.getElementById("michi-app");
if (node?.textContent && app) {
  const cfg = JSON.parse(node.textContent) as PanelConfig;
  const root = document.documentElement.style;
  root.setProperty("--c", cfg.theme.color);
  root.setProperty("--on", cfg.theme.onColor);
  root.setProperty("--link", cfg.theme.link);
  const bridge = createBridge(cfg.key, cfg.parentOrigin);
  // The session starts from the host page's copy when the loader has one, so it is read before the first
  // render (the restore runs on mount).
  void bridge.hostCopy().then((host) => {
    const session = createSession(
      cfg.key,
      openStore(() => window.localStorage),
      Date.now,
      host,
    );
    render(<App cfg={cfg} session={session} bridge={bridge} />, app);
  });
}
