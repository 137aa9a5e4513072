import "server-only";

// The words of the mails a sign-up sends. Plain text only: every mail client shows it, and the names in it
// come from people's own input, so there is no HTML to escape.

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** What the link finishes: a business of one's own, or joining the business that invited the address. */
export type SignUpPurpose = { business: string; invited: boolean };

/** To an address without an account: the confirmation link that creates it. */
export function confirmSignUpMail(p: { email: string; purpose: SignUpPurpose; link: string; hours: number }) {
  const what = p.purpose.invited
    ? `create your michi-chat account and join ${oneLine(p.purpose.business)}`
    : `create your michi-chat account and your business ${oneLine(p.purpose.business)}`;
  return {
    subject: "Confirm your e-mail address for michi-chat",
    text: [
      `Someone asked to ${what} with the address ${p.email}.`,
      "",
      `To finish, open this link within ${p.hours} hours and enter the password you chose. It works once:`,
      p.link,
      "",
      "If it was not you, ignore this mail: nothing is created without this link.",
    ].join("\n"),
  };
}

/** To an address that has an account: nothing to create, and no link that would create anything. */
export function existingAccountMail(p: { email: string; purpose: SignUpPurpose; origin: string }) {
  const next = p.purpose.invited
    ? [
        `To join ${oneLine(p.purpose.business)}, open the invitation link from the earlier mail, sign in with`,
        "your account and accept.",
      ]
    : ["To use it, sign in:", `${p.origin}/signin`];
  return {
    subject: "You already have a michi-chat account",
    text: [
      `Someone tried to create a michi-chat account with the address ${p.email}, which already has one.`,
      "",
      ...next,
      "",
      `Forgot your password? Choose a new one here: ${p.origin}/signin/forgot`,
      "",
      "If it was not you, ignore this mail: nothing was changed.",
    ].join("\n"),
  };
}
