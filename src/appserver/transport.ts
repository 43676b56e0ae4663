/**
 * Stdio transport to one `codex app-server` child: spawned without a shell, one JSON message per line in both
 * directions. Lines from stdout are bounded (an oversize line is dropped and reported, never buffered without
 * limit); writes respect stdin backpressure; stop closes stdin first (the server exits on EOF within tens of
 * milliseconds) and escalates to SIGTERM, then SIGKILL.
 *
 * The child leads a process group of its own, and every signal goes to the whole group: the commands the agent
 * started (a background `sleep`, a dev server) would otherwise outlive the process that started them. Once the
 * app-server is gone, however it ended, what is left of its group gets SIGTERM and, after the grace, SIGKILL. If
 * this service process exits without stopping them (a shutdown that timed out, an uncaught exception), the groups
 * still alive are killed on its way out. Two limits remain: a command that moves to a process group or session of
 * its own escapes the group, and a service killed by SIGKILL runs no code at all (its app-servers still exit on the
 * end of their stdin, but their commands stay).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { AppServerExitedError } from './errors.js';

export interface TransportOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Longest stdout line accepted; longer lines are dropped. */
  lineLengthMax: number;
  /** Time between closing stdin and SIGTERM, and between SIGTERM and SIGKILL. */
  stopGraceMs: number;
}

export interface TransportExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface TransportHandlers {
  onLine(line: string): void;
  onStderrLine(line: string): void;
  onOversizeLine(lengthBytes: number): void;
  onExit(exit: TransportExit): void;
}

/** Process groups that may still have members, killed if this process exits before ending them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    // Only synchronous work runs in an exit handler; SIGKILL needs no follow-up.
    process.on('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
    exitHookInstalled = true;
  }
  liveGroups.add(pid);
}

/** True when the group had a member to signal. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to what is left of the group, SIGKILL after the grace if anything is still there. */
async function endGroup(pid: number, graceMs: number): Promise<void> {
  try {
    if (!signalGroup(pid, 'SIGTERM')) return;
    const deadline = Date.now() + graceMs;
    while (signalGroup(pid, 0)) {
      if (Date.now() >= deadline) {
        signalGroup(pid, 'SIGKILL');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, graceMs)));
    }
  } finally {
    liveGroups.delete(pid);
  }
}

export class StdioTransport {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private exitInfo: TransportExit | null = null;
  private readonly exited: Promise<TransportExit>;
  /** Settles once the rest of the child's process group has been ended after the child exited. */
  private groupEnded: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: TransportOptions,
    handlers: TransportHandlers,
  ) {
    this.child = spawn(options.binary, options.args, {
      env: options.env,
      cwd: options.cwd,
      shell: false,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Leader of a new process group (and session), so a stop can reach the commands it started.
      detached: true,
    });
    const groupId = this.child.pid;
    if (groupId !== undefined) trackGroup(groupId);
    this.exited = new Promise((resolve) => {
      const finish = (exit: TransportExit): void => {
        if (this.exitInfo) return;
        this.exitInfo = exit;
        if (groupId !== undefined) this.groupEnded = endGroup(groupId, options.stopGraceMs);
        handlers.onExit(exit);
        resolve(exit);
      };
      this.child.once('exit', (code, signal) => finish({ code, signal }));
      this.child.once('error', () => finish({ code: null, signal: null }));
    });
    // A write after the child died raises EPIPE on stdin; the exit handler already reports the death.
    this.child.stdin.on('error', () => undefined);
    readLines(this.child.stdout, options.lineLengthMax, handlers.onLine, handlers.onOversizeLine);
    readLines(this.child.stderr, options.lineLengthMax, handlers.onStderrLine, () => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  waitForExit(): Promise<TransportExit> {
    return this.exited;
  }

  /** Writes one message line; resolves once the pipe accepted it (waits for `drain` when the pipe is full). */
  async send(line: string): Promise<void> {
    // Both read as the process being gone (503 "restarting"), whichever the caller notices first: the exit or the pipe.
    if (!this.running) throw new AppServerExitedError('app-server process is not running');
    const accepted = this.child.stdin.write(`${line}\n`);
    if (accepted) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        cleanup();
        resolve();
      };
      const onClose = (): void => {
        cleanup();
        reject(new AppServerExitedError('app-server stdin closed'));
      };
      const cleanup = (): void => {
        this.child.stdin.off('drain', onDrain);
        this.child.stdin.off('close', onClose);
      };
      this.child.stdin.on('drain', onDrain);
      this.child.stdin.on('close', onClose);
    });
  }

  /** Signals the child's whole process group (used after a failed start and as the escalation of `stop`). */
  kill(signal: NodeJS.Signals): void {
    if (this.running && this.child.pid !== undefined) signalGroup(this.child.pid, signal);
  }

  /**
   * stdin end → SIGTERM after the grace → SIGKILL after another grace, each to the whole group; resolves once the
   * child exited and the rest of its group was ended.
   */
  async stop(): Promise<TransportExit> {
    if (this.running) {
      this.child.stdin.end();
      if (!(await this.exitsWithin(this.options.stopGraceMs))) {
        this.kill('SIGTERM');
        if (!(await this.exitsWithin(this.options.stopGraceMs))) this.kill('SIGKILL');
      }
    }
    const exit = await this.exited;
    await this.groupEnded;
    return exit;
  }

  private async exitsWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const result = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return result;
  }
}

/** Splits a byte stream into UTF-8 lines without ever holding more than `lineLengthMax` bytes of one line. */
export function readLines(
  stream: Readable,
  lineLengthMax: number,
  onLine: (line: string) => void,
  onOversize: (lengthBytes: number) => void,
): void {
  let parts: Buffer[] = [];
  let length = 0;
  let oversize = false;
  let droppedBytes = 0;
  const flush = (): void => {
    if (oversize) onOversize(droppedBytes);
    else if (length > 0) onLine(Buffer.concat(parts, length).toString('utf8').replace(/\r$/, ''));
    parts = [];
    length = 0;
    oversize = false;
    droppedBytes = 0;
  };
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (oversize || length + piece.length > lineLengthMax) {
        oversize = true;
        droppedBytes += length + piece.length;
        parts = [];
        length = 0;
      } else if (piece.length > 0) {
        parts.push(piece);
        length += piece.length;
      }
      if (newline === -1) break;
      flush();
      start = newline + 1;
    }
  });
  stream.on('end', () => {
    if (length > 0 || oversize) flush();
  });
}
