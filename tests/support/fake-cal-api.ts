import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { certificates } from "./fixture-site";

// A fake Cal.com API v2 on loopback, over https with a throwaway CA, reached through the operator allowlist
// and extra CA like the packs' fixture site. It speaks the two endpoints the Cal.com packs use, as Cal.com
// documents them (our own words and values, not copied payloads):
//   GET /v2/slots, header cal-api-version: 2024-09-04, query eventTypeId, start and end (a day, UTC), timeZone
//   (the zone the answer's times are written in, default UTC). Answer: { status: "success", data: { "<day>":
//   [{ start: "<ISO 8601 with that zone's offset>" }] } }.
//     https://cal.com/docs/api-reference/v2/slots/get-available-time-slots-for-an-event-type
//   POST /v2/bookings, header cal-api-version: 2024-08-13, body { start (UTC ISO 8601), eventTypeId, attendee:
//   { name, email, timeZone } }. Answer 201 { status: "success", data: { id, uid, title, status: "accepted",
//   start, end, attendees, hosts, ... } }.
//     https://cal.com/docs/api-reference/v2/bookings/create-a-booking
//   Errors use Cal.com's v2 envelope { status: "error", timestamp, path, error: { code, message } }; a start
//   nobody is free for is a 400 "no_available_users_found_error" (calcom/cal.com pull request 15247 made it a
//   400 rather than a 500), a missing or wrong key a 401.
// Auth is `Authorization: Bearer cal_...` (the pages above). It records every request it was sent.

export type CalRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | null;
};

export type CalBooking = {
  uid: string;
  start: string;
  attendee: Record<string, unknown>;
  idempotencyKey?: string;
};

export type FakeCalApi = {
  /** https://localhost:PORT, for the pack's test-only API address. */
  baseUrl: string;
  /** localhost:PORT, for the allowlist. */
  host: string;
  caPem: string;
  apiKey: string;
  eventTypeId: number;
  requests: CalRequest[];
  bookings: CalBooking[];
  /** Someone else books this start (UTC ISO) first: it is no longer listed nor bookable. */
  take(startUtc: string): void;
  close(): Promise<void>;
};

const DURATION_MIN = 30;

/** `at` written in `timeZone` with its offset, as Cal.com writes slot starts (2050-09-05T09:00:00.000+02:00). */
function inZone(at: number, timeZone: string): { day: string; iso: string } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  const wall = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  const off = Math.round((wall - at) / 60000);
  const sign = off < 0 ? "-" : "+";
  const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, "0");
  const mm = String(Math.abs(off) % 60).padStart(2, "0");
  const day = `${p.year}-${p.month}-${p.day}`;
  return { day, iso: `${day}T${p.hour}:${p.minute}:${p.second}.000${sign}${hh}:${mm}` };
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const fail = (res: ServerResponse, path: string, status: number, code: string, message: string) =>
  send(res, status, {
    status: "error",
    timestamp: new Date().toISOString(),
    path,
    error: { code, message },
  });

/** `free` are the bookable starts as UTC ISO strings (…Z). */
export async function startFakeCalApi(opts: {
  free: string[];
  apiKey?: string;
  eventTypeId?: number;
}): Promise<FakeCalApi> {
  const { caPem, key, cert } = await certificates();
  const apiKey = opts.apiKey ?? "cal_live_fake0123456789abcdef";
  const eventTypeId = opts.eventTypeId ?? 5150;
  const free = new Set(opts.free.map((s) => new Date(s).toISOString()));
  const requests: CalRequest[] = [];
  const bookings: CalBooking[] = [];
  let seq = 0;

  function slots(res: ServerResponse, r: CalRequest) {
    if (r.headers["cal-api-version"] !== "2024-09-04")
      return fail(res, r.path, 400, "BadRequestException", "cal-api-version must be 2024-09-04");
    const start = r.query.get("start");
    const end = r.query.get("end");
    if (!start || !end || Number(r.query.get("eventTypeId")) !== eventTypeId)
      return fail(res, r.path, 400, "BadRequestException", "start, end and a known eventTypeId are required");
    const from = Date.parse(start.length === 10 ? `${start}T00:00:00Z` : start);
    const to = Date.parse(end.length === 10 ? `${end}T23:59:59Z` : end);
    const zone = r.query.get("timeZone") ?? "UTC";
    const data: Record<string, { start: string }[]> = {};
    for (const s of [...free].sort()) {
      const at = Date.parse(s);
      if (at < from || at > to) continue;
      const local = inZone(at, zone);
      data[local.day] = [...(data[local.day] ?? []), { start: local.iso }];
    }
    send(res, 200, { status: "success", data });
  }

  function book(res: ServerResponse, r: CalRequest) {
    if (r.headers["cal-api-version"] !== "2024-08-13")
      return fail(res, r.path, 400, "BadRequestException", "cal-api-version must be 2024-08-13");
    const b = r.body ?? {};
    const attendee = b.attendee as Record<string, unknown> | undefined;
    if (typeof b.start !== "string" || b.eventTypeId !== eventTypeId || !attendee?.name || !attendee.email)
      return fail(res, r.path, 400, "BadRequestException", "start, eventTypeId and attendee are required");
    const start = new Date(b.start).toISOString();
    if (!free.has(start))
      return fail(res, r.path, 400, "BadRequestException", "no_available_users_found_error");
    free.delete(start);
    const uid = `fakeuid${++seq}`;
    const idem = r.headers["idempotency-key"];
    bookings.push({ uid, start, attendee, ...(typeof idem === "string" ? { idempotencyKey: idem } : {}) });
    send(res, 201, {
      status: "success",
      data: {
        id: 9000 + seq,
        uid,
        title: `Consultation between Michi Clinic and ${attendee.name}`,
        description: "",
        status: "accepted",
        start,
        end: new Date(Date.parse(start) + DURATION_MIN * 60_000).toISOString(),
        duration: DURATION_MIN,
        eventTypeId,
        meetingUrl: "https://app.cal.com/video/fake-room",
        location: "https://app.cal.com/video/fake-room",
        hosts: [{ id: 7, name: "Dr. Host", email: "host-private@clinic.example", timeZone: "Europe/Rome" }],
        attendees: [{ ...attendee, language: "en", absent: false }],
        createdAt: new Date().toISOString(),
      },
    });
  }

  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://localhost");
      let body: Record<string, unknown> | null = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
      } catch {}
      const r: CalRequest = {
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      requests.push(r);
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return fail(res, r.path, 401, "UnauthorizedException", "Invalid API key");
      if (r.method === "GET" && r.path === "/v2/slots") return slots(res, r);
      if (r.method === "POST" && r.path === "/v2/bookings") return book(res, r);
      fail(res, r.path, 404, "NotFoundException", `Cannot ${r.method} ${r.path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `https://localhost:${port}`,
    host: `localhost:${port}`,
    caPem,
    apiKey,
    eventTypeId,
    requests,
    bookings,
    take: (s) => void free.delete(new Date(s).toISOString()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
