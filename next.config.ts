import type { NextConfig } from "next";

// Admin and marketing pages may never be framed. The widget panel (/w/...), the loader and the widget API
// set their own framing and CORS rules per tenant, so they are left out here.
const securityHeaders = [
  {
    key: "Content-Security-Policy",
    value: "frame-ancestors 'none'; base-uri 'self'; object-src 'none'; form-action 'self'",
  },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  output: "standalone",
  poweredByHeader: false,
  // `npm test` and the Dockerfile run `tsc --noEmit` over the whole tree as their own step; checking again
  // inside `next build` would only double the build time.
  typescript: { ignoreBuildErrors: true },
  // Server actions keep Next's default body limit (1 MB): document uploads go to their own route handler
  // (src/app/api/admin/[tenant]/knowledge/upload), which checks the caller first and caps the body at 20 MB.
  // Native or file-loading packages stay outside the bundle and are traced into the standalone output.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pg",
    "argon2",
    "pino",
    "undici",
    "ioredis",
    "rate-limiter-flexible",
    "nodemailer",
    // Native (libvips, from its own @img/sharp-* packages): profile photos are rebuilt from their pixels.
    "sharp",
  ],
  // The standalone output carries what the server runs and nothing else: no env file (`npm start` reads the
  // project root's files at each start, scripts/start.mjs; a copy here went stale and kept a removed variable
  // alive), and no sources, tests, benchmarks or docs, which a path built from process.cwd() pulled in.
  // scripts/build.mjs copies the worker files and migrations the server loads by path.
  outputFileTracingExcludes: {
    "*": [
      ".env*",
      "src/**",
      "tests/**",
      "bench/**",
      "docs/**",
      "scripts/**",
      "*.md",
      ".data/**",
      ".ci/**",
      "test-results/**",
      "playwright-report/**",
    ],
  },
  async headers() {
    return [
      { source: "/((?!w/|widget\\.js|api/widget/).*)", headers: securityHeaders },
      { source: "/w/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] },
      // The panel bundles carry a content hash in their names; the loader's name is fixed, so it is cached briefly.
      {
        source: "/w/:file(panel\\.[0-9a-f]{12}\\.(?:js|css))",
        headers: [{ key: "Cache-Control", value: "public, max-age=31536000, immutable" }],
      },
      {
        source: "/widget.js",
        headers: [
          { key: "Cache-Control", value: "public, max-age=300, stale-while-revalidate=86400" },
          // Host pages load it cross-site with <script>; nosniff makes browsers refuse it as a script unless
          // it is served as JavaScript, and refuse to guess a type for anything else under this name.
          { key: "X-Content-Type-Options", value: "nosniff" },
        ],
      },
    ];
  },
};

export default nextConfig;
