/**
 * The processes of one bubblewrap sandbox, found from the host through /proc: every descendant of the sandbox's
 * outermost process (bubblewrap). In its own PID namespace an orphan is adopted by the namespace's init (a
 * bubblewrap process too), so a command that detached, double-forked or started a session of its own is still
 * a descendant. The app-server's own chain is bubblewrap, its init, the init's first child (the codex binary,
 * pid 2 in the namespace), and the network bridges that child started before it became the app-server (socat,
 * pids 3 and 4 in the namespace, with the connections they forked): without them the app-server cannot reach
 * the service's `/v1`. Namespace pids only grow, so no later command of the agent can take one of theirs.
 */
import fs from 'node:fs';

interface ProcessInfo {
  pid: number;
  ppid: number;
}

function processTable(): ProcessInfo[] {
  const table: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie is already dead (its parent reaps it); signalling it again would change nothing.
      if (fields[0] !== 'Z') table.push({ pid: Number(entry), ppid: Number(fields[1]) });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/** Every live descendant of `rootPid` (not `rootPid` itself). */
export function descendants(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of processTable()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The pid of `pid` inside its innermost PID namespace. */
function namespacePid(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const ids = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/);
    return ids ? Number(ids[ids.length - 1]) : null;
  } catch {
    return null;
  }
}

/** Namespace pids of the bridges the sandbox's command starts first (the model bridge, then the egress one). */
const BRIDGE_NAMESPACE_PIDS = new Set([3, 4]);

/**
 * bubblewrap, its init (pid 1 in the namespace), the command it started (pid 2) and that command's bridges
 * (pids 3 and 4, with every connection they forked): what the app-server needs to go on serving turns.
 */
export function sandboxChain(rootPid: number): number[] {
  const chain = [rootPid];
  const table = processTable();
  const init = table.find((entry) => entry.ppid === rootPid && namespacePid(entry.pid) === 1);
  if (!init) return chain;
  chain.push(init.pid);
  const command = table.find((entry) => entry.ppid === init.pid && namespacePid(entry.pid) === 2);
  if (!command) return chain;
  chain.push(command.pid);
  for (const bridge of table.filter((entry) => entry.ppid === command.pid && BRIDGE_NAMESPACE_PIDS.has(namespacePid(entry.pid) ?? 0))) {
    chain.push(bridge.pid, ...descendants(bridge.pid));
  }
  return chain;
}

/** SIGKILLs what `targets` lists until it lists nothing (children forked meanwhile are found next round). */
export async function endProcesses(targets: () => number[], rounds = 50): Promise<number> {
  let ended = 0;
  for (let round = 0; round < rounds; round++) {
    const pids = targets();
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        ended += 1;
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return ended;
}
