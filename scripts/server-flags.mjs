// The Node flags the production server runs with: `npm start` (scripts/start.mjs), the operator image (its
// Dockerfile CMD, kept equal by tests/unit/server-flags.test.ts), the e2e tests and `npm run bench`, so what is
// measured and tested is what runs.
//
// --max-semi-space-size=32: V8's young generation may grow to 2 × 32 MB instead of 2 × 16 MB. A chat turn
// allocates a lot of short-lived objects (request, web streams, SSE events, SQL rows); with the larger nursery
// fewer of them survive long enough to be copied, and scavenges run half as often. Measured on the benchmark's
// turn at 200 visitors, two servers side by side on one database in interleaved slices: 5-9% less CPU per turn
// (bench/README.md). 64 MB gains little more and holds 1,000 streams in ~370 MB instead of ~330, too
// close to the 400 MB budget. The nursery only grows under allocation pressure: an idle server keeps its size.
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=32"];
