/**
 * Whether the agent sandbox can run here (bubblewrap present and a test sandbox starts), decided the way the
 * service decides it at start; and helpers shared by the sandbox tests.
 */
import fs from 'node:fs';
import pino from 'pino';
import { AppServerSandbox } from '../../src/appserver/sandbox.js';

export const IS_ROOT = process.getuid?.() === 0;
export const UID_FIRST = 3_000_000;

async function probe(): Promise<string | null> {
  const sandbox = await AppServerSandbox.detect(
    { mode: 'auto', bwrap: '/usr/bin/bwrap', socat: '/usr/bin/socat', uidFirst: UID_FIRST, uidCount: 1_000_000, hidden: [], codexDirs: [] },
    pino({ level: 'silent' }),
  );
  return sandbox.kind === 'bubblewrap' ? null : sandbox.reason;
}

/** Null when bubblewrap works here, else why the sandbox tests are skipped. */
export const SANDBOX_UNAVAILABLE: string | null = await probe();
if (SANDBOX_UNAVAILABLE !== null) console.warn(`sandbox tests skipped: bubblewrap is unavailable (${SANDBOX_UNAVAILABLE})`);

/** The value of one variable in a host process's initial environment (read as the service's user). */
export function environOf(pid: number, name: string): string | undefined {
  const entries = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  const entry = entries.find((item) => item.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}
