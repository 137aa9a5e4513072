import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "michi-chat", template: "%s · michi-chat" },
  description:
    "A chatbot for small businesses that fetches live facts safely, in a widget that weighs almost nothing.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">{children}</body>
    </html>
  );
}
