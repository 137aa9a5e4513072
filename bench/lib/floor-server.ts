// The framework floor's server: the least the production server does for a chat turn, started by the bench
// beside it (bench/lib/servers.ts, with the production server's Node flags). Each request gets what
// scripts/serve.mjs gives every request before its handler runs (a request id, the peer address, the
// per-request context) and the floor's turn (floor.ts) is served through the production server's own
// direct-route path (scripts/direct-routes.mjs: the matcher, a standard Request in, the Response streamed
// out). What a real turn costs above this floor is the platform's own work. It lives in bench/ so the product
// carries none of it; it reports its port over IPC.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { directRoutes, serveDirect } from "../../scripts/direct-routes.mjs";
import { floorTurn } from "./floor";

const [modelUrl, caFile, toolUrl, model = "fake-small"] = process.argv.slice(2);
if (!modelUrl || !caFile || !toolUrl || !process.send) {
  console.error("usage: floor-server.ts <modelUrl> <caFile> <toolUrl> [model] (with an IPC channel)");
  process.exit(2);
}
const settings = { modelUrl, caFile, toolUrl, model };

const FLOOR_PATH = "/floor";
const routes = directRoutes({ [FLOOR_PATH]: { POST: (req: Request) => floorTurn(req, settings) } });
const requestContext = new AsyncLocalStorage<{ requestId: string }>();

const server = http.createServer((req, res) => {
  const id = randomUUID();
  req.headers["x-request-id"] = id;
  req.headers["x-michi-peer"] = req.socket.remoteAddress ?? "";
  res.setHeader("X-Request-Id", id);
  requestContext.run({ requestId: id }, () => {
    const route = routes.match(req);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    serveDirect(req, res, route).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);
