/**
 * Host-wide record of the sandbox uid ranges in use, so two deployments on one host never hand the same uid to
 * two customers without saying so. Each deployment that drops app-servers to per-customer uids writes one claim
 * file (named after its data dir) in a shared folder: its data dir, range and process (pid and start time, so a
 * claim of a process that is gone, or whose pid was reused, counts for nothing). A live claim of another data dir
 * whose range overlaps this one's is a conflict; the same data dir (a restart, a second node on one host) is not.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface UidClaim {
  dataDir: string;
  first: number;
  count: number;
  pid: number;
  /** Start time of `pid` (clock ticks since boot, field 22 of /proc/PID/stat). */
  startTime: string;
}

/** Start time of a live process, or null when there is none with that pid. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

const overlaps = (a: UidClaim, b: UidClaim): boolean => a.first < b.first + b.count && b.first < a.first + a.count;

function parseClaim(text: string): UidClaim | null {
  try {
    const claim = JSON.parse(text) as UidClaim;
    const valid =
      typeof claim.dataDir === 'string' &&
      Number.isSafeInteger(claim.first) &&
      Number.isSafeInteger(claim.count) &&
      Number.isSafeInteger(claim.pid) &&
      typeof claim.startTime === 'string';
    return valid ? claim : null;
  } catch {
    return null;
  }
}

export interface ClaimResult {
  /** This deployment's claim file (removed by `releaseUidRange`). */
  file: string;
  /** A live deployment of another data dir whose range overlaps, if any. */
  conflict: UidClaim | null;
}

/**
 * Records this deployment's range, then looks for a live overlapping claim of another data dir. The claim is
 * written first, so two deployments starting at the same moment each see the other.
 */
export async function claimUidRange(dir: string, dataDir: string, first: number, count: number): Promise<ClaimResult> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o755 });
  const own: UidClaim = { dataDir, first, count, pid: process.pid, startTime: processStartTime(process.pid) ?? '' };
  const name = `${crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}.json`;
  const file = path.join(dir, name);
  const temporary = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(temporary, `${JSON.stringify(own)}\n`, { mode: 0o644 });
  await fsp.rename(temporary, file);
  let conflict: UidClaim | null = null;
  for (const entry of await fsp.readdir(dir)) {
    if (entry === name || !entry.endsWith('.json')) continue;
    const claim = parseClaim(await fsp.readFile(path.join(dir, entry), 'utf8').catch(() => ''));
    if (!claim || claim.dataDir === dataDir || !overlaps(own, claim)) continue;
    if (processStartTime(claim.pid) !== claim.startTime) {
      // Left by a process that is gone: nobody holds that range any more.
      await fsp.rm(path.join(dir, entry), { force: true }).catch(() => undefined);
      continue;
    }
    conflict = claim;
    break;
  }
  return { file, conflict };
}

/** Removes this process's claim (at shutdown), unless another process of the same data dir holds it now. */
export async function releaseUidRange(file: string): Promise<void> {
  const claim = parseClaim(await fsp.readFile(file, 'utf8').catch(() => ''));
  if (claim?.pid === process.pid) await fsp.rm(file, { force: true }).catch(() => undefined);
}
