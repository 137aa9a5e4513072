import "server-only";
import type { DbHandle } from "@/lib/db/client";
import type { JobQueue } from "@/lib/queue";
import type { PageFetcher } from "@/lib/security/fetch-text";

// What the knowledge jobs need from the world, passed in so tests can give them a fixture site, a queue of
// their own and a clock without waits.

/** A chunk as the index stores it (./prepare.ts makes them). */
export type PreparedChunk = {
  ord: number;
  headingPath: string;
  text: string;
  hash: string;
  lang: string;
  words: string;
};

export type Prepared = { lang: string; chunks: PreparedChunk[] };

/** One extracted document, as the extractor (./extract) returns it. */
export type ExtractedDoc = {
  title: string | null;
  lang: string | null;
  canonical: string | null;
  noindex: boolean;
  links: string[];
  sections: { headingPath: string[]; text: string }[];
  hash: string;
  /** The index rows, when the extraction worker prepared them (./prepare.ts). */
  prepared?: Prepared;
};

export type ExtractOutcome = { ok: true; doc: ExtractedDoc } | { ok: false; reason: string; message: string };

export type ExtractFn = (input: {
  bytes: Uint8Array;
  contentType: string;
  url: string;
}) => Promise<ExtractOutcome>;
export type ChunkFn = (
  sections: ExtractedDoc["sections"],
) => { index: number; headingPath: string[]; text: string; hash: string }[];

export type KnowledgeDeps = {
  db: DbHandle;
  queue: JobQueue;
  fetcher: PageFetcher;
  extract: ExtractFn;
  chunk: ChunkFn;
  searchText: (text: string, lang?: string | null) => string;
  /** The operator allowlist (MICHI_FETCH_ALLOW_HOSTS): hosts reachable although not on a site domain. */
  allowHosts: readonly string[];
  sleep: (ms: number) => Promise<void>;
  /** The gap between two requests to one host (2 per second by default). */
  intervalMs: number;
  /** An embeddings model is configured: new chunks get an embed job. */
  embeddings: boolean;
};

export const SYNC_QUEUE = "knowledge.sync";
export const PAGE_QUEUE = "knowledge.page";

export type SyncJob = { tenantId: string; sourceId: string; runId: string };
export type PageJob = SyncJob & { pageId: string; url: string; depth: number; follow: boolean };

export const UPLOAD_QUEUE = "knowledge.upload";

export type UploadJob = { tenantId: string; sourceId: string; pageId: string };
