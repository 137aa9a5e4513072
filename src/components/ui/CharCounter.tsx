"use client";

import { useEffect, useState } from "react";

// A live "n / max" beside a text input or textarea, shown once the text nears its limit. The input itself has
// no maxlength: the browser would cut a paste silently and the cut text would be saved as if complete. Instead
// the server refuses an over-long value with a message, and this counter warns before that happens.

const NEAR = 0.8;

export function CharCounter({ forId, max }: { forId: string; max: number }) {
  const [length, setLength] = useState<number | null>(null);
  useEffect(() => {
    const el = document.getElementById(forId) as HTMLInputElement | HTMLTextAreaElement | null;
    if (!el) return;
    const update = () => setLength(el.value.length);
    update();
    el.addEventListener("input", update);
    return () => el.removeEventListener("input", update);
  }, [forId]);
  const near = length !== null && length >= Math.floor(max * NEAR);
  const over = length !== null && length > max;
  return (
    <p
      id={`${forId}-count`}
      className={near ? (over ? "field-error" : "help") : "sr-only"}
      aria-live="polite"
      data-testid="char-counter"
    >
      {near
        ? over
          ? `${length} / ${max} characters: ${length! - max} too many, it will not be saved like this.`
          : `${length} / ${max} characters`
        : ""}
    </p>
  );
}
