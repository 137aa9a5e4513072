import { tenantRoute } from "@/lib/auth/guard";
import { receiveUpload } from "@/lib/knowledge/upload-route";

// POST /api/admin/[tenant]/knowledge/upload, the file itself as the body (Content-Type:
// application/octet-stream) and its name in X-File-Name (URI-encoded). Admins and owners only; a non-member
// gets 404. Session, role and tenant are settled before a byte of the body is read, and the body is refused
// by its Content-Length or, without one, as soon as it passes 20 MB while streaming. This replaces a server
// action, which would have needed Next's body limit raised for every action of the app.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = tenantRoute("admin", receiveUpload, { body: "bytes" });
