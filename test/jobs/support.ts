/** Shared parts of the timed-work tests: a real local SMTP server that can refuse the next mails, and waits on it. */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Smtp {
  port: number;
  received: ParsedMail[];
  /** The envelope recipients (RCPT TO) of every mail the server was given, refused ones included. */
  recipients: string[];
  /** The next `count` messages (matching `which`, default all) are refused with a temporary failure (451). */
  refuseNext(count: number, which?: (mail: ParsedMail) => boolean): void;
  refused(): number;
  /** The most SMTP sessions open at once since the last `resetSessions`. */
  maxSessions(): number;
  resetSessions(): void;
  /** The server answers the next mail only once the returned function is called (a slow server). */
  holdNext(): () => void;
  /** Waits (event-driven, bounded) until a received mail matches. */
  waitFor(predicate: (mail: ParsedMail) => boolean): Promise<ParsedMail>;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<Smtp> {
  const received: ParsedMail[] = [];
  const recipients: string[] = [];
  const waiters: Array<() => void> = [];
  let refuse = 0;
  let refuseWhich: (mail: ParsedMail) => boolean = () => true;
  let refusedCount = 0;
  let hold: Promise<void> | null = null;
  let sessions = 0;
  let maxSessions = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onConnect(_session, callback) {
      sessions += 1;
      maxSessions = Math.max(maxSessions, sessions);
      callback();
    },
    onClose() {
      sessions -= 1;
    },
    onData(stream, session, callback) {
      recipients.push(...session.envelope.rcptTo.map((rcpt) => rcpt.address));
      const held = hold;
      hold = null;
      simpleParser(stream)
        .then(async (mail) => {
          if (held) await held;
          if (refuse > 0 && refuseWhich(mail)) {
            refuse -= 1;
            refusedCount += 1;
            for (const waiter of waiters.splice(0)) waiter();
            const error = Object.assign(new Error('Try again later'), { responseCode: 451 });
            callback(error);
            return;
          }
          received.push(mail);
          for (const waiter of waiters.splice(0)) waiter();
          callback();
        })
        .catch(callback);
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    recipients,
    refuseNext: (count, which = () => true) => {
      refuse = count;
      refuseWhich = which;
    },
    refused: () => refusedCount,
    maxSessions: () => maxSessions,
    resetSessions: () => {
      maxSessions = sessions;
    },
    holdNext: () => {
      let release: () => void = () => undefined;
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => release();
    },
    async waitFor(predicate) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = received.find(predicate);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such mail among ${received.map((mail) => mail.subject).join(' | ')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const toOf = (mail: ParsedMail): string => JSON.stringify(mail.to ?? '');

/** The one-click unsubscribe link of a mail (its List-Unsubscribe header and the text agree). */
export function unsubscribeLinkOf(mail: ParsedMail): string {
  const header = headerLine(mail, 'list-unsubscribe');
  const match = /<([^>]+)>/.exec(header);
  if (!match) throw new Error(`no List-Unsubscribe header in ${mail.subject}`);
  if (!(mail.text ?? '').includes(match[1]!)) throw new Error('the mail text does not carry the unsubscribe link');
  return match[1]!;
}

/** A header as sent (mailparser turns List-* headers into objects). */
export function headerLine(mail: ParsedMail, name: string): string {
  const line = mail.headerLines.find((entry) => entry.key === name)?.line ?? '';
  return line.slice(line.indexOf(':') + 1).trim();
}
