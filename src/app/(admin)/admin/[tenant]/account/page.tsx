import type { Metadata } from "next";
import { Card, PageHeader } from "@/components/ui";
import { PASSWORD_MIN } from "@/lib/auth/accounts";
import { requireTenant } from "@/lib/auth/guard";
import { ownAvatarVersion } from "@/lib/db/queries/avatars";
import { NameForm, PasswordForm, SignOutEverywhereForm } from "./AccountForms";
import {
  changePasswordAction,
  removePhotoAction,
  signOutEverywhereAction,
  updateNameAction,
  updatePhotoAction,
} from "./actions";
import { PhotoForms } from "./PhotoForms";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage({ params }: { params: Promise<{ tenant: string }> }) {
  const { tenant: slug } = await params;
  const ctx = await requireTenant(slug);
  const s = ctx.tenant.slug;
  const photo = await ownAvatarVersion(ctx.db.platform, ctx.user.id);
  return (
    <div className="max-w-2xl space-y-6">
      <PageHeader title="Account" description={`Signed in as ${ctx.user.email}.`} />
      <Card
        id="password"
        title={ctx.user.mustChangePassword ? "Choose your own password" : "Password"}
        description={
          ctx.user.mustChangePassword
            ? "You signed in with a one-time password. Enter it as the current password, then choose your own."
            : "Changing it signs you out on every other device."
        }
      >
        <PasswordForm action={changePasswordAction.bind(null, s)} passwordMin={PASSWORD_MIN} />
      </Card>
      <Card id="profile" title="Name">
        <NameForm action={updateNameAction.bind(null, s)} name={ctx.user.name} />
      </Card>
      <Card
        id="photo"
        title="Photo"
        description="Visitors see it beside your name when you join their chat, and your team sees it in Live chat. It is deleted with your account."
      >
        <PhotoForms
          upload={updatePhotoAction.bind(null, s)}
          remove={removePhotoAction.bind(null, s)}
          name={ctx.user.name || ctx.user.email}
          src={photo ? `/api/admin/${s}/avatars/${ctx.user.id}?v=${photo}` : null}
        />
      </Card>
      <Card
        id="sessions"
        title="Sign out everywhere"
        description="Ends every session of your account, on this device too, for example after losing a phone."
      >
        <SignOutEverywhereForm action={signOutEverywhereAction.bind(null, s)} />
      </Card>
    </div>
  );
}
