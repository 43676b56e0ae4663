/** The host processes of a sandbox uid, read from /proc: what the sandbox tests count, watch and clean up. */
import fs from 'node:fs';

/** Host pids of live (not zombie) processes running as `uid`. */
export function processesOf(uid: number): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]) === uid && /^State:\s+(\S)/m.exec(status)?.[1] !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Kills what is left running as `uid`; a process that ended between the listing and the kill is no error. */
export function killProcessesOf(uid: number): void {
  for (const pid of processesOf(uid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}
