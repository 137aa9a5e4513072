// The outside world of a bench run, in a process of its own so it does not share an event loop with the load
// generator or the server under test: the scripted fake model and the tenant's https site.
// Started by bench/lib/servers.ts; reports its addresses over IPC, stops on SIGTERM.
import { writeFileSync } from "node:fs";
import { startFakeModel } from "../../tests/support/fake-model";
import { startFixtureSite } from "../../tests/support/fixture-site";
import { eventsFeed, productCatalogue } from "./payloads";

export type WorldInfo = { modelUrl: string; fixtureOrigin: string; fixtureHost: string; caFile: string };

const caFile = process.argv[2];
if (!caFile || !process.send) {
  console.error("usage: started by the bench runner with an IPC channel and a CA file path");
  process.exit(2);
}

const model = await startFakeModel({ host: "127.0.0.1" });
const fixture = await startFixtureSite({
  routes: { "/api/events.json": eventsFeed(), "/api/catalogue.json": productCatalogue() },
});
writeFileSync(caFile, fixture.caPem);

const stop = () => {
  void Promise.allSettled([model.close(), fixture.close()]).then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("disconnect", stop);

// The fixture site keeps every request in memory; a long run makes hundreds of thousands of them.
setInterval(() => {
  fixture.requests.length = 0;
}, 2000).unref();

const info: WorldInfo = {
  modelUrl: model.url,
  fixtureOrigin: fixture.origin,
  fixtureHost: fixture.host,
  caFile,
};
process.send(info);
