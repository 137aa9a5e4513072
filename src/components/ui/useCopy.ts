"use client";

import { useState } from "react";

/**
 * Copies `text` to the clipboard and returns the outcome's words for a live region. A browser can refuse the
 * clipboard (no permission, an insecure origin), so the fallback tells the person to copy `what` by hand.
 */
export function useCopy(text: string, what: string): { status: string; copy: () => Promise<void> } {
  const [status, setStatus] = useState("");
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setStatus("Copied");
    } catch {
      setStatus(`Could not copy: select the ${what} and copy it yourself.`);
    }
  }
  return { status, copy };
}
