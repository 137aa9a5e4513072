"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { operatorAction } from "@/lib/auth/guard";
import { createBusiness, setKnowledgeLimits, setTenantLimits, setTenantStatus } from "@/lib/tenants/operator";
import { resendInvitation } from "@/lib/tenants/operator-team";

// Operator-only actions. They address tenants by id, which is fine here: the operator manages every
// tenant. Each change is written to the affected tenant's audit log.

const tenantId = z.uuid({ error: "Unknown business" });

/** An optional whole number: an empty input means "use the platform default". */
const optionalInt = (max: number) =>
  z
    .string()
    .trim()
    .default("")
    .transform((v, ctx) => {
      if (v === "") return null;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `Enter a whole number from 0 to ${max.toLocaleString("en")}, or leave empty`,
        });
        return z.NEVER;
      }
      return n;
    });

export const createTenantAction = operatorAction(
  z.object({
    name: z.string().trim().min(2, "Enter the business name").max(80, "Keep the name under 80 characters"),
    // Empty: derived from the name as sign-up does (the form fills it in as the name is typed).
    slug: z
      .string()
      .trim()
      .toLowerCase()
      .regex(
        /^$|^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/,
        "Use lower-case letters, digits and dashes (2–40 characters)",
      ),
    ownerEmail: z.email("Enter the owner's e-mail address").trim().toLowerCase().max(320),
  }),
  async (ctx, input) => {
    const created = await createBusiness(ctx, input);
    revalidatePath("/admin/operator");
    const where = `Created ${created.tenant.name} at /admin/${created.tenant.slug}`;
    if (created.invitation) {
      const { email, mail } = created.invitation;
      if (mail.status === "kept")
        return {
          message: `${where}. No SMTP server is configured, so the invitation for ${email} is in the Outbox: forward its link to them.`,
          values: {},
        };
      return mail.status === "failed"
        ? {
            ok: false,
            message: `${where}, but the invitation mail to ${email} could not be sent (${mail.error ?? "mail error"}). Send a new invitation from the business's Team page.`,
            values: {},
          }
        : { message: `${where}. An invitation to become its owner was e-mailed to ${email}.`, values: {} };
    }
    const owner = created.owner?.email ?? input.ownerEmail;
    if (created.oneTimePassword)
      return {
        message: `${where}, owned by ${owner}. Mail is off on this installation, so a new account was created: hand over this one-time password now; it is not shown again.`,
        data: { email: owner, oneTimePassword: created.oneTimePassword },
        values: {},
      };
    return { message: `${where}, owned by ${owner}. The existing account was made its owner.`, values: {} };
  },
);

export const setStatusAction = operatorAction(
  z.object({ tenantId, status: z.enum(["active", "suspended"]) }),
  async (ctx, input) => {
    await setTenantStatus(ctx, input.tenantId, input.status);
    revalidatePath("/admin/operator", "layout");
    return { message: input.status === "suspended" ? "Suspended: the widget stops answering." : "Resumed." };
  },
);

export const setLimitsAction = operatorAction(
  z.object({
    tenantId,
    monthlyTokenBudget: optionalInt(2_000_000_000),
    visitorPerMin: optionalInt(100_000),
    ipPerMin: optionalInt(100_000),
    tenantPerMin: optionalInt(1_000_000),
    maxStreams: optionalInt(100_000),
  }),
  async (ctx, input) => {
    const { tenantId: id, monthlyTokenBudget, ...limits } = input;
    const rateLimits = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== null && v > 0));
    await setTenantLimits(ctx, id, { monthlyTokenBudget, rateLimits });
    revalidatePath("/admin/operator", "layout");
    return { message: "Budget and limits saved." };
  },
);

/** A required whole number in a range. */
const wholeIn = (min: number, max: number) =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      const n = Number(v);
      if (v === "" || !Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({
          code: "custom",
          message: `Enter a whole number from ${min} to ${max.toLocaleString("en")}`,
        });
        return z.NEVER;
      }
      return n;
    });

export const setKnowledgeLimitsAction = operatorAction(
  z.object({ tenantId, uploadQuotaMb: wholeIn(0, 100_000), pageCap: wholeIn(1, 5000) }),
  async (ctx, input) => {
    await setKnowledgeLimits(ctx, input.tenantId, input);
    revalidatePath("/admin/operator", "layout");
    return { message: "Knowledge limits saved." };
  },
);

export const resendInvitationAction = operatorAction(
  z.object({ tenantId, invitationId: z.uuid({ error: "Unknown invitation" }) }),
  async (ctx, input) => {
    const { email, mail } = await resendInvitation(ctx, input.tenantId, input.invitationId);
    revalidatePath(`/admin/operator/${input.tenantId}`);
    if (mail.status === "failed")
      return {
        ok: false,
        message: `A new invitation for ${email} was made, but its mail could not be sent (${mail.error ?? "mail error"}).`,
      };
    return mail.status === "kept"
      ? {
          message: `No SMTP server is configured, so the new invitation for ${email} is in the Outbox: forward its link.`,
        }
      : { message: `A new invitation was e-mailed to ${email}; the earlier link no longer works.` };
  },
);
