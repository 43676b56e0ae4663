/**
 * What bounds one customer's sandbox besides its namespaces: its cgroup (processes, memory, swap, CPU weight) or,
 * where no cgroup can be made, rlimits (processes per customer uid, data size per process); the size of its
 * RAM-backed temporary folders; a per-file size limit and the workspace quota; the seccomp filter (which also
 * refuses new user namespaces); the descriptors it inherits (stdio only); the processes a turn leaves behind;
 * and the host-wide claim on the deployment's uid range.
 *
 * Every sandbox starts through a small bash wrapper run as root on the host before bubblewrap: it closes every
 * descriptor above stderr (a launcher may have left one open without close-on-exec, and bubblewrap passes what
 * it gets on), moves itself into the customer's cgroup, sets the rlimits, opens the seccomp program for
 * bubblewrap's `--seccomp 3`, then execs bubblewrap. So nothing of the sandbox runs outside its limits.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { CgroupTree } from './cgroups.js';
import { seccompSupported, writeSeccompFile } from './seccomp.js';
import { claimUidRange, releaseUidRange, type UidClaim } from './uid-ranges.js';
import { descendants, endProcesses, sandboxChain } from './sandbox-processes.js';

const BASH = '/bin/bash';
/** Descriptor bubblewrap reads the seccomp program from (opened by the wrapper). */
export const SECCOMP_FD = 3;

const WRAPPER = `
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-"; fi
done
set -e
while [ "$#" -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    --cgroup=*) printf '%s\\n' "$$" > "\${1#--cgroup=}" ;;
    --ulimit-?=*) opt="\${1%%=*}"; ulimit -"\${opt#--ulimit-}" "\${1#*=}" ;;
    --seccomp=*) exec ${SECCOMP_FD}< "\${1#--seccomp=}" ;;
    *) echo "sandbox wrapper: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
exec "$@"
`;

/** The limits of every sandbox of this deployment (the `agent.limits` config section). */
export interface SandboxLimitSettings {
  pids: number;
  memoryBytes: number;
  swapBytes: number;
  cpuWeight: number;
  cgroups: 'auto' | 'off';
  cgroupParent?: string;
  tmpSizeBytes: number;
  workspaceQuotaBytes: number;
  endBackgroundProcessesAtTurnEnd: boolean;
  uidClaimDir: string;
}

export interface LimitsContext {
  dataDir: string;
  uidFirst: number;
  uidCount: number;
  /** True when app-servers run as per-customer uids (the service is root). */
  perCustomerUid: boolean;
}

const MiB = 1024 * 1024;
const size = (bytes: number): string =>
  bytes % (1024 * MiB) === 0 ? `${bytes / (1024 * MiB)} GiB` : bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;

export class SandboxLimits {
  private constructor(
    readonly config: SandboxLimitSettings,
    private readonly context: LimitsContext,
    readonly cgroups: CgroupTree | null,
    /** Why no cgroup is used (rlimits instead), when none is. */
    readonly cgroupReason: string | null,
    private readonly seccompFile: string | null,
    private readonly claimFile: string | null,
    /** A live deployment of another data dir with an overlapping uid range: no app-server starts. */
    readonly conflict: UidClaim | null,
  ) {}

  /** Sets up what every sandbox of this deployment uses, and logs one line saying which limits are in force. */
  static async setup(config: SandboxLimitSettings, context: LimitsContext, logger: Logger): Promise<SandboxLimits> {
    if (!fs.existsSync(BASH)) throw new Error(`${BASH} not found (the sandbox wrapper needs it)`);
    let cgroups: CgroupTree | null = null;
    let cgroupReason: string | null = 'agent.limits.cgroups is "off"';
    if (config.cgroups === 'auto') {
      const detected = context.perCustomerUid ? await CgroupTree.detect(context.dataDir, config.cgroupParent) : 'the service is not root';
      if (typeof detected === 'string') cgroupReason = detected;
      else [cgroups, cgroupReason] = [detected, null];
    }
    let seccompFile: string | null = null;
    if (seccompSupported()) {
      seccompFile = path.join(context.dataDir, 'sandbox', 'seccomp.bpf');
      await writeSeccompFile(seccompFile);
    }
    let claim: Awaited<ReturnType<typeof claimUidRange>> | null = null;
    if (context.perCustomerUid) claim = await claimUidRange(config.uidClaimDir, context.dataDir, context.uidFirst, context.uidCount);
    const limits = new SandboxLimits(config, context, cgroups, cgroupReason, seccompFile, claim?.file ?? null, claim?.conflict ?? null);
    limits.log(logger);
    return limits;
  }

  private log(logger: Logger): void {
    const { config } = this;
    const resources = this.cgroups
      ? `${this.cgroups.description}: ${config.pids} processes, ${size(config.memoryBytes)} memory + ${size(config.swapBytes)} swap, cpu weight ${config.cpuWeight}`
      : `NO CGROUP (${this.cgroupReason}) — rlimits instead: ${config.pids} processes per customer uid, ${size(config.memoryBytes)} data per process`;
    const quota =
      config.workspaceQuotaBytes > 0
        ? `workspace quota ${size(config.workspaceQuotaBytes)} (per file; turns refused past it)`
        : 'no workspace quota';
    const filter = this.seccompFile ? 'seccomp filter on, no new user namespaces' : `NO seccomp filter (no program for ${process.arch})`;
    logger.info(
      { limits: { cgroup: this.cgroups?.description ?? null, cgroupReason: this.cgroupReason, seccomp: this.seccompFile !== null } },
      `agent limits: ${resources}; /tmp, /var/tmp and /dev/shm ${size(config.tmpSizeBytes)} each; ${quota}; ${filter}; only stdio inherited`,
    );
    if (this.conflict) {
      logger.error(
        { conflict: this.conflict },
        `agent sandbox uid range ${this.rangeText()} OVERLAPS the range ${this.conflict.first}–${this.conflict.first + this.conflict.count - 1} of the deployment with data dir ${this.conflict.dataDir} (pid ${this.conflict.pid}); no app-server starts until agent.isolationUidFirst/isolationUidCount are changed so the ranges are apart`,
      );
    }
  }

  private rangeText(): string {
    return `${this.context.uidFirst}–${this.context.uidFirst + this.context.uidCount - 1}`;
  }

  /** Why the customer's app-server must not start, or null. */
  refusal(): string | null {
    if (!this.conflict) return null;
    return `the sandbox uid range ${this.rangeText()} overlaps the range of another deployment on this host (data dir ${this.conflict.dataDir})`;
  }

  /** bubblewrap options this module adds (the seccomp descriptor the wrapper opens). */
  bwrapOptions(): string[] {
    return this.seccompFile ? ['--seccomp', String(SECCOMP_FD)] : [];
  }

  /**
   * Options of the codex binary this sandbox needs: Codex's own command sandbox (`workspace-write`, `read-only`)
   * builds a user namespace by default, which the seccomp filter refuses; its Landlock mode needs none.
   */
  codexArgs(): string[] {
    return this.seccompFile ? ['-c', 'features.use_legacy_landlock=true'] : [];
  }

  /** Creates the customer's cgroup and returns the wrapper command around `bwrap args`. */
  async wrap(customerId: number, binary: string, args: string[]): Promise<{ binary: string; args: string[] }> {
    const options: string[] = [];
    if (this.cgroups) {
      const procsFiles = await this.cgroups.create(customerId, this.config);
      for (const file of procsFiles) options.push(`--cgroup=${file}`);
    } else if (this.context.perCustomerUid) {
      // Per uid: every customer has a uid of its own, so this bounds one customer's processes.
      options.push(`--ulimit-u=${this.config.pids}`, `--ulimit-d=${Math.floor(this.config.memoryBytes / 1024)}`);
    } else {
      options.push(`--ulimit-d=${Math.floor(this.config.memoryBytes / 1024)}`);
    }
    if (this.config.workspaceQuotaBytes > 0) options.push(`--ulimit-f=${Math.ceil(this.config.workspaceQuotaBytes / 1024)}`);
    // No core files: a process killed for a too-large file would otherwise dump one into the workspace.
    options.push('--ulimit-c=0');
    if (this.seccompFile) options.push(`--seccomp=${this.seccompFile}`);
    return { binary: BASH, args: ['-c', WRAPPER, 'switchyard-sandbox', ...options, '--', binary, ...args] };
  }

  /**
   * Ends every process of the sandbox whose outermost process is `rootPid` except the app-server's own chain
   * (bubblewrap, its init, the codex binary): what the agent's commands left running.
   */
  async endBackgroundProcesses(rootPid: number): Promise<number> {
    const keep = new Set(sandboxChain(rootPid));
    return endProcesses(() => descendants(rootPid).filter((pid) => !keep.has(pid)));
  }

  /** The customer's app-server stopped: what is left in its cgroup ends and the cgroup goes. */
  async stopped(customerId: number): Promise<void> {
    await this.cgroups?.remove(customerId);
  }

  async close(): Promise<void> {
    if (this.claimFile) await releaseUidRange(this.claimFile);
    await this.cgroups?.close();
  }
}

/**
 * Bytes a folder's files take on disk, or null when it cannot tell. `du` only reads metadata: it stays on one
 * file system, follows no link and opens no file, so nothing the agent planted in the tree can redirect it.
 */
export function diskUsage(dir: string): Promise<number | null> {
  return new Promise((resolve) => {
    execFile('du', ['-s', '-x', '-B1', '--', dir], { timeout: 60_000, env: { PATH: '/usr/bin:/bin' } }, (_error, stdout) => {
      // du exits 1 when a file vanished meanwhile; its total is still the answer.
      const bytes = Number(/^(\d+)/.exec(stdout)?.[1]);
      resolve(Number.isSafeInteger(bytes) ? bytes : null);
    });
  });
}
