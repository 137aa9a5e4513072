import type { IncomingMessage, ServerResponse } from "node:http";

/** What a compiled App Router route module exports: its handlers by HTTP method. */
type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response> | Response;
type Handlers = Record<string, Handler | unknown>;
type Matched = { handler: Handler; params: Record<string, string> };

/** App Router paths whose route modules the production server calls directly (see direct-routes.mjs). */
export const DIRECT_ROUTES: readonly string[];
export function compileRoute(route: string): { route: string; pattern: RegExp; names: string[] };
export function directRoutes(modules: Record<string, Handlers>): {
  match(req: IncomingMessage): Matched | undefined;
};
export function loadDirectRoutes(dir: string, require: NodeRequire): ReturnType<typeof directRoutes>;
export function serveDirect(req: IncomingMessage, res: ServerResponse, route: Matched): Promise<void>;
/** Why a request target must be refused with 400 before any routing (not origin-form, "//", a bad escape), or null. */
export function badRequestTarget(url: string | undefined): string | null;
export function refuseRequestTarget(res: ServerResponse, reason: string): void;
