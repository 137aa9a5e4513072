import { type NextRequest, NextResponse } from "next/server";
import { adminCsp, newNonce } from "@/lib/security/csp";

// Next 16's proxy (formerly middleware): gives each admin and sign-in page view a script nonce. Next reads the
// nonce from the request's Content-Security-Policy header and puts it on the scripts it renders; the
// response carries the same policy to the browser.

export function proxy(request: NextRequest) {
  const csp = adminCsp(newNonce(), { dev: process.env.NODE_ENV === "development" });
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  matcher: [
    {
      source: "/(admin|signin|signup|invite)(/.*)?",
      // Requests with a body never pass through here: Next would copy the body for the proxy first, reading
      // the whole upload before any size limit runs. Server-action posts answer with RSC data, not a page,
      // and the body limits of docs/security.md apply to them. Prefetches need no policy either.
      missing: [
        { type: "header", key: "content-type" },
        { type: "header", key: "next-action" },
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
