"use client";

import { useEffect } from "react";

/**
 * Loads the real embed script on this page, exactly as a visitor's browser would, so the launcher appears in
 * the corner. Leaving the page removes the script and the launcher it drew.
 */
export function WidgetPreview({ src, widgetKey }: { src: string; widgetKey: string }) {
  useEffect(() => {
    const before = new Set(document.querySelectorAll("michi-chat"));
    const script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.dataset.michiKey = widgetKey;
    document.body.append(script);
    return () => {
      script.remove();
      for (const el of document.querySelectorAll("michi-chat")) if (!before.has(el)) el.remove();
    };
  }, [src, widgetKey]);
  return null;
}
