/** @jsxImportSource preact */

export const Icon = ({ d }: { d: string }) => (
  <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
    <path d={d} fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
  </svg>
);
export const PLUS = "M12 5v14M5 12h14";
export const CLOSE = "M6 6l12 12M18 6L6 18";
export const SEND = "M4 12l16-8-6 16-3-7-7-1z";
export const STOP = "M7 7h10v10H7z";
