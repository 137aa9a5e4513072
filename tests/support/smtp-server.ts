import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

// A real SMTP server in the test process, so mail tests exercise nodemailer end to end (connection, EHLO,
// AUTH, MAIL FROM/RCPT TO, DATA) and read what arrived the way a mail client would.
//
// Built on the smtp-server package (Nodemailer project; options as documented in its README,
// https://nodemailer.com/extras/smtp-server/): `onAuth` receives the client's user name and password and
// answers with a user or an error, `onData` gets the message stream, `disabledCommands: ["STARTTLS"]` plus
// `allowInsecureAuth` accept AUTH over plain TCP on loopback (what a local relay such as a development MTA
// does). The message is parsed with mailparser's `simpleParser` (https://nodemailer.com/extras/mailparser/).
//
// Use from a test:
//   const smtp = await startSmtpServer({ user: "mailer", password: "s3cret" });
//   useSmtp(smtp.url);                      // points env() at it
//   … send …
//   const [mail] = await smtp.waitFor(1);  // ParsedMail: mail.subject, mail.text, mail.to, mail.envelope
//   await smtp.close();

export type ReceivedMail = ParsedMail & {
  envelope: { from: string; to: string[]; user: string | null };
};

export type TestSmtpServer = {
  /** smtp://user:password@127.0.0.1:PORT (or without credentials), for MICHI_SMTP_URL. */
  url: string;
  port: number;
  received: ReceivedMail[];
  /** Resolves once `n` mails in total have arrived (fails the test after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** Refuses the next mails' DATA with this SMTP reply code (e.g. 550), until set back to null. */
  rejectWith(code: number | null): void;
  close(): Promise<void>;
};

export async function startSmtpServer(
  opts: { user?: string; password?: string } = {},
): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let rejectCode: number | null = null;
  const needsAuth = opts.user !== undefined;

  const server = new SMTPServer({
    logger: false,
    disabledCommands: needsAuth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    allowInsecureAuth: true,
    authOptional: !needsAuth,
    onAuth(auth, _session, callback) {
      if (auth.username === opts.user && auth.password === opts.password)
        return callback(null, { user: auth.username });
      return callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          if (rejectCode !== null)
            return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: rejectCode }));
          received.push(
            Object.assign(parsed, {
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
                to: session.envelope.rcptTo.map((r) => r.address),
                user: typeof session.user === "string" ? session.user : null,
              },
            }),
          );
          for (const w of waiters.splice(0)) w();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const cred = needsAuth
    ? `${encodeURIComponent(opts.user!)}:${encodeURIComponent(opts.password ?? "")}@`
    : "";

  return {
    url: `smtp://${cred}127.0.0.1:${port}`,
    port,
    received,
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${n} mails, got ${received.length}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received.slice(0, n);
    },
    rejectWith(code) {
      rejectCode = code;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Points the process's environment at an SMTP server (or at none with null) for the next env() read. */
export function useSmtp(url: string | null, extra: { from?: string; outbox?: boolean } = {}): void {
  if (url) process.env.MICHI_SMTP_URL = url;
  else delete process.env.MICHI_SMTP_URL;
  if (extra.from) process.env.MICHI_MAIL_FROM = extra.from;
  else delete process.env.MICHI_MAIL_FROM;
  if (extra.outbox === undefined) delete process.env.MICHI_MAIL_OUTBOX;
  else process.env.MICHI_MAIL_OUTBOX = String(extra.outbox);
  (globalThis as { __michiEnv?: unknown }).__michiEnv = undefined;
}
