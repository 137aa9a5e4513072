import type { ButtonHTMLAttributes } from "react";

// The .btn tokens of globals.css as a class name; SubmitButton (client) adds the pending state.

export type ButtonVariant = "primary" | "secondary" | "danger";

export function buttonClass(variant: ButtonVariant = "primary", extra?: string): string {
  const v = variant === "secondary" ? " btn-secondary" : variant === "danger" ? " btn-danger" : "";
  return `btn${v}${extra ? ` ${extra}` : ""}`;
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant };
