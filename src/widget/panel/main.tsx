/** @jsxImportSource preact */
// The panel's entry, bundled to public/w/panel.<hash>.js. Its config arrives as a JSON data block written by
// the /w/[key] route; the tenant colours go in through the CSSOM, which the page's style-src does not cover.
import { render } from "preact";
import type { PanelConfig } from "../public-config";
import { App } from "./App";
import { createBridge } from "./bridge";
import { applyTheme, Preview } from "./preview";
import { createSession } from "./session";
import { HttpError } from "./sse";
import { openStore } from "./storage";

const node = document.getElementById("michi-config");
const app = document.getElementById("michi-app");
if (node?.textContent && app) {
  const cfg = JSON.parse(node.textContent) as PanelConfig;
  applyTheme(cfg.theme);
  const bridge = createBridge(cfg.key, cfg.parentOrigin);
  if (new URLSearchParams(location.search).has("preview")) render(<Preview cfg={cfg} bridge={bridge} />, app);
  // The session starts from the host page's copy when the loader has one, so it is read before the first
  // render (the restore runs on mount).
  else
    void bridge.hostCopy().then(async (host) => {
      const session = createSession(
        cfg.key,
        openStore(() => window.localStorage),
        Date.now,
        host,
      );
      // A verified visitor's session comes first: its answer names their latest conversation, which the
      // restore then opens; a refused token is said at once, not at the first message.
      let notice: string | undefined;
      if (host?.identity)
        await session.token(true).catch((e) => (notice = e instanceof HttpError ? e.code : "offline"));
      render(<App cfg={cfg} session={session} bridge={bridge} notice={notice} />, app);
    });
}
