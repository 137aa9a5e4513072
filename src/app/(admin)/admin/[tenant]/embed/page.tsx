import type { Metadata } from "next";
import { Card } from "@/components/ui/Card";
import { PageHeader } from "@/components/ui/PageHeader";
import { requireTenant, roleAtLeast } from "@/lib/auth/guard";
import { getTenantSettings } from "@/lib/db/queries/bot";
import { listRefusedOrigins } from "@/lib/db/queries/refused-origins";
import { embedSnippet, MAX_SITE_ENTRIES } from "@/lib/embed/site-domains";
import { visitorIdentityStatus } from "@/lib/embed/visitor-identity";
import { env } from "@/lib/env";
import { siteEntryFor } from "@/lib/security/origins";
import { formatDate } from "@/shared/dates";
import {
  removeIdentitySecretAction,
  rotateIdentitySecretAction,
  saveDomainsAction,
  setIdentityRequiredAction,
} from "./actions";
import { CopySnippet } from "./CopySnippet";
import { DomainsForm } from "./DomainsForm";
import { PlainButton, RotateSecretForm } from "./IdentityForms";
import { WidgetPreview } from "./WidgetPreview";

export const metadata: Metadata = { title: "Site & embed" };

export default async function EmbedPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const { settings, refused } = await ctx.db.forTenant(ctx.tenant.id, async (tx) => ({
    settings: await getTenantSettings(tx, ctx.tenant.id),
    refused: await listRefusedOrigins(tx),
  }));
  const publicUrl = env().MICHI_PUBLIC_URL;
  const widgetKey = settings?.widgetKey ?? ctx.tenant.widgetKey;
  const seen = settings?.widgetSeenAt;
  const identity = await visitorIdentityStatus(ctx);
  return (
    <div className="max-w-3xl space-y-6">
      <PageHeader
        title="Site & embed"
        description="Where your chat lives, and the one line that puts it on your site."
      />
      <Card id="site" title="Site domains">
        <DomainsForm
          action={saveDomainsAction.bind(null, ctx.tenant.slug)}
          domains={settings?.siteDomains ?? []}
          canEdit={roleAtLeast(ctx.role, "admin")}
          max={MAX_SITE_ENTRIES}
        />
        {refused.length > 0 ? (
          <div className="mt-4" data-testid="refused-origins">
            <h3 className="font-semibold text-sm">
              Sites that tried to show your chat this week, and were refused
            </h3>
            <p className="muted text-sm">
              The launcher does not appear on a site that is not in the list above. If one of these is yours,
              add the entry shown beside it. The sites are as the widget on the page reported them.
            </p>
            <ul className="mt-2 space-y-1 text-sm">
              {refused.map((r) => (
                <li key={r.origin}>
                  <code className="break-all">{r.origin}</code>{" "}
                  <span className="muted">
                    · add <code className="break-all">{siteEntryFor(r.origin)}</code>
                  </span>{" "}
                  <span className="muted">
                    · last {formatDate(r.lastSeenAt, ctx.tenant.timeZone)}
                    {r.hits > 1 ? ` · ${r.hits} times` : ""}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Card>
      <Card
        id="snippet"
        title="Embed snippet"
        description="Paste this just before </body> on every page where the chat should appear."
      >
        <CopySnippet snippet={embedSnippet(publicUrl, widgetKey)} />
        <p className="mt-3 text-sm muted">
          {seen
            ? `The widget was last seen on your site on ${formatDate(seen, ctx.tenant.timeZone)}.`
            : "The widget has not been seen on your site yet."}
        </p>
      </Card>
      <VerifiedVisitors
        slug={ctx.tenant.slug}
        identity={identity}
        isOwner={roleAtLeast(ctx.role, "owner")}
        timeZone={ctx.tenant.timeZone}
      />
      <Card
        id="preview"
        title="Preview"
        description="The launcher in the corner of this page is your widget, live."
      >
        <p className="text-sm">
          Open it and try a question: it answers with your current bot settings and tools.
        </p>
        <WidgetPreview src={`${publicUrl}/widget.js`} widgetKey={widgetKey} />
      </Card>
    </div>
  );
}

function VerifiedVisitors({
  slug,
  identity,
  isOwner,
  timeZone,
}: {
  slug: string;
  identity: { secretSetAt: string | null; required: boolean };
  isOwner: boolean;
  timeZone: string;
}) {
  return (
    <Card
      id="verified-visitors"
      title="Verified visitors"
      description="Let your site tell the chat who a signed-in customer is, so their conversations follow them across devices and tools that need to know who asks can run."
    >
      <p className="text-sm">
        {identity.secretSetAt
          ? `An identity secret exists (created ${formatDate(new Date(identity.secretSetAt), timeZone)}). Your server signs a short token with it and your page hands it to the widget with michi("identify", token). See docs/widget.md.`
          : "No identity secret yet: every visitor is anonymous."}
      </p>
      <p className="mt-2 text-sm" data-testid="identity-required">
        {identity.required
          ? "Tools that ask for a verified visitor are offered to verified visitors only."
          : "Tools that ask for a verified visitor are offered to every visitor."}
      </p>
      {isOwner ? (
        <div className="mt-4 flex flex-wrap items-start gap-3">
          <RotateSecretForm
            action={rotateIdentitySecretAction.bind(null, slug)}
            exists={!!identity.secretSetAt}
          />
          <PlainButton
            action={setIdentityRequiredAction.bind(null, slug)}
            values={{ required: identity.required ? "false" : "true" }}
            label={identity.required ? "Offer them to every visitor" : "Require a verified visitor"}
            pendingText="Saving…"
          />
          {identity.secretSetAt ? (
            <PlainButton
              action={removeIdentitySecretAction.bind(null, slug)}
              label="Remove identity secret"
              pendingText="Removing…"
              variant="danger"
            />
          ) : null}
        </div>
      ) : (
        <p className="mt-3 text-sm muted">Only the business&apos;s owners can change these.</p>
      )}
    </Card>
  );
}
