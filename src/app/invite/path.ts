// Where an invitation link lands; the token itself travels in the fragment, never in this path.
export const INVITE_PATH = "/invite";
