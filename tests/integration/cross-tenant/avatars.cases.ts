import { eq } from "drizzle-orm";
import { putAvatar } from "@/lib/db/queries/avatars";
import { userAvatars } from "@/lib/db/schema";
import { sealAvatarRef } from "@/lib/security/avatar-token";
import { png } from "../../support/images";
import type { MatrixCases, Side, World } from "./harness";

// Profile photos (issue #28). Both owners have one. The console's photo route names a member by user id: A's
// owner asks for B's owner's photo with B's slug, and with A's own slug. The visitor's photo route takes an
// opaque token; the probe's token is a genuine one made for A's tenant and A's visitor but naming B's owner,
// so only the photos' row-level policy (B's owner is no member of A) can refuse it at A's key.
const W = "src/app/api/widget/[key]";
let world: World | null = null;
const versionOf = (s: Side) => s.extra.avatarVersion as string;

export const cases: MatrixCases = {
  setup: async (w) => {
    world = w;
    for (const [s, colour] of [
      [w.a, [1, 2, 3]],
      [w.b, [4, 5, 6]],
    ] as const) {
      const image = png(4, 4, [...colour]);
      const version = `${colour.join("")}`.padStart(16, "0");
      await putAvatar(w.db.platform, s.owner.id, { image, contentType: "image/png", version });
      const [row] = await w.db.platform
        .select({ v: userAvatars.version })
        .from(userAvatars)
        .where(eq(userAvatars.userId, s.owner.id));
      s.extra.avatarVersion = row!.v;
    }
  },
  routes: {
    "src/app/api/admin/[tenant]/avatars/[userId]/route.ts#GET": {
      params: (w) => [
        { tenant: w.b.tenant.slug, userId: w.b.owner.id },
        { tenant: w.a.tenant.slug, userId: w.b.owner.id },
      ],
      query: (w) => `/avatars/${w.b.owner.id}?v=${versionOf(w.b)}`,
    },
  },
  widget: {
    [`${W}/avatars/[token]/route.ts#GET`]: {
      kind: "visitor",
      params: (b) => ({
        token: sealAvatarRef(process.env.MICHI_AUTH_SECRET!, {
          tenantId: world!.a.tenant.id,
          visitorId: `visitor-of-${world!.a.tenant.slug}`,
          userId: b.owner.id,
          version: versionOf(b),
        }),
      }),
    },
  },
};
