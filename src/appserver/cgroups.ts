/**
 * One cgroup per customer sandbox, with a process limit, a memory (and swap) limit and a CPU weight, under a
 * folder of this deployment (`switchyard-<hash of the data dir>`) below the service's own cgroup or a configured
 * parent. Works on the unified hierarchy (cgroup v2: one folder, controllers enabled in the parents'
 * `cgroup.subtree_control`) and on cgroup v1 (a folder per controller: pids, memory, cpu). The sandbox wrapper
 * writes its own pid to every `cgroup.procs` file returned by `create` before bubblewrap starts, so nothing of
 * the sandbox ever runs outside it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface CgroupLimits {
  pids: number;
  memoryBytes: number;
  swapBytes: number;
  /** 1–10000, 100 being the default share. */
  cpuWeight: number;
}

type Controller = 'pids' | 'memory' | 'cpu';
const CONTROLLERS: Controller[] = ['pids', 'memory', 'cpu'];

interface Mount {
  point: string;
  type: string;
  superOptions: string[];
}

/** Mounts of cgroup file systems, from /proc/self/mountinfo. */
function cgroupMounts(mountinfo: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const [type, , superOptions = ''] = right.split(' ');
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    mounts.push({ point: left.split(' ')[4]!.replace(/\\040/g, ' '), type, superOptions: superOptions.split(',') });
  }
  return mounts;
}

/** This process's cgroup path per v1 controller, and on the unified hierarchy (key ''). */
function ownCgroups(text: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of match[1]!.split(',')) own.set(controller, match[2]!);
  }
  return own;
}

export const deploymentName = (dataDir: string): string =>
  `switchyard-${crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 12)}`;

export class CgroupTree {
  private constructor(
    readonly version: 1 | 2,
    /** The deployment's folder in each hierarchy (v2: one, under key ''). */
    private readonly bases: Map<Controller | '', string>,
  ) {}

  /** The deployment's cgroup folders, created and checked; a reason when cgroups cannot be used here. */
  static async detect(dataDir: string, parent?: string): Promise<CgroupTree | string> {
    const mountinfo = await fsp.readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
    const own = ownCgroups(await fsp.readFile('/proc/self/cgroup', 'utf8').catch(() => ''));
    const mounts = cgroupMounts(mountinfo);
    const name = deploymentName(dataDir);
    const unified = mounts.find((mount) => mount.type === 'cgroup2');
    if (unified) {
      const controllers = (await fsp.readFile(path.join(unified.point, 'cgroup.controllers'), 'utf8').catch(() => '')).split(/\s+/);
      if (CONTROLLERS.every((controller) => controllers.includes(controller))) {
        return CgroupTree.setupV2(path.join(unified.point, parent ?? own.get('') ?? '/'), name);
      }
    }
    const bases = new Map<Controller | '', string>();
    for (const controller of CONTROLLERS) {
      const mount = mounts.find((candidate) => candidate.type === 'cgroup' && candidate.superOptions.includes(controller));
      if (!mount) return `no cgroup v2 with the pids, memory and cpu controllers, and no cgroup v1 ${controller} hierarchy`;
      const base = path.join(mount.point, parent ?? own.get(controller) ?? '/', name);
      try {
        await fsp.mkdir(base, { recursive: true });
        await fsp.access(path.join(base, 'cgroup.procs'), fs.constants.W_OK);
      } catch (error) {
        return `cannot create ${base} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      }
      bases.set(controller, base);
    }
    await removeIdle(bases.values());
    return new CgroupTree(1, bases);
  }

  private static async setupV2(parentDir: string, name: string): Promise<CgroupTree | string> {
    const base = path.join(parentDir, name);
    try {
      // Controllers reach a child only through every parent's subtree_control; a parent holding processes
      // (other than the root) refuses (EBUSY): give such a service a delegated, empty parent instead.
      const enabled = (await fsp.readFile(path.join(parentDir, 'cgroup.subtree_control'), 'utf8')).split(/\s+/);
      const missing = CONTROLLERS.filter((controller) => !enabled.includes(controller));
      if (missing.length > 0) await fsp.writeFile(path.join(parentDir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
      await fsp.mkdir(base, { recursive: true });
      await fsp.writeFile(path.join(base, 'cgroup.subtree_control'), CONTROLLERS.map((c) => `+${c}`).join(' '));
    } catch (error) {
      return `cannot enable the pids, memory and cpu controllers for ${base} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set agent.limits.cgroupParent to a delegated cgroup`;
    }
    await removeIdle([base]);
    return new CgroupTree(2, new Map([['', base]]));
  }

  get description(): string {
    return `cgroup v${this.version} (${[...this.bases.values()][0]})`;
  }

  private dirs(customerId: number): Map<Controller | '', string> {
    return new Map([...this.bases].map(([controller, base]) => [controller, path.join(base, `customer-${customerId}`)]));
  }

  /** Creates (or updates) the customer's cgroup; returns the `cgroup.procs` files its sandbox joins. */
  async create(customerId: number, limits: CgroupLimits): Promise<string[]> {
    const dirs = this.dirs(customerId);
    for (const dir of dirs.values()) await fsp.mkdir(dir, { recursive: true });
    const write = (controller: Controller | '', file: string, value: string | number) =>
      fsp.writeFile(path.join(dirs.get(controller)!, file), String(value));
    if (this.version === 2) {
      await write('', 'pids.max', limits.pids);
      await write('', 'memory.max', limits.memoryBytes);
      await write('', 'memory.swap.max', limits.swapBytes).catch(() => undefined); // absent without swap accounting
      await write('', 'cpu.weight', limits.cpuWeight);
    } else {
      await write('pids', 'pids.max', limits.pids);
      // memory+swap may never be below memory: lift it, set memory, then lower it to memory + swap.
      const memsw = fs.existsSync(path.join(dirs.get('memory')!, 'memory.memsw.limit_in_bytes'));
      if (memsw) await write('memory', 'memory.memsw.limit_in_bytes', -1);
      await write('memory', 'memory.limit_in_bytes', limits.memoryBytes);
      if (memsw) await write('memory', 'memory.memsw.limit_in_bytes', limits.memoryBytes + limits.swapBytes);
      await write('cpu', 'cpu.shares', Math.max(2, Math.round((limits.cpuWeight * 1024) / 100)));
    }
    return [...dirs.values()].map((dir) => path.join(dir, 'cgroup.procs'));
  }

  /** Host pids in the customer's cgroup. */
  async processes(customerId: number): Promise<number[]> {
    const dir = this.dirs(customerId).get(this.version === 2 ? '' : 'pids')!;
    const text = await fsp.readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map(Number);
  }

  /** A value of the customer's cgroup (e.g. `pids.current`), or null. */
  async read(customerId: number, controller: Controller, file: string): Promise<string | null> {
    const dir = this.dirs(customerId).get(this.version === 2 ? '' : controller)!;
    return fsp.readFile(path.join(dir, file), 'utf8').catch(() => null);
  }

  /** Ends whatever still runs in the customer's cgroup and removes it. */
  async remove(customerId: number): Promise<void> {
    for (let round = 0; round < 50; round++) {
      const pids = await this.processes(customerId);
      if (pids.length === 0) break;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The last members may take a moment to leave after SIGKILL (the folder stays busy until they are reaped).
    for (const dir of this.dirs(customerId).values()) {
      for (let attempt = 0; attempt < 40; attempt++) {
        const removed = await fsp.rmdir(dir).then(
          () => true,
          (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
        );
        if (removed) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }

  /** Removes the deployment's folders (at shutdown; a folder still in use stays). */
  async close(): Promise<void> {
    for (const base of this.bases.values()) await fsp.rmdir(base).catch(() => undefined);
  }
}

/** Customer cgroups left by an earlier process of this deployment: the empty ones go (rmdir refuses busy ones). */
async function removeIdle(bases: Iterable<string>): Promise<void> {
  for (const base of bases) {
    const entries = await fsp.readdir(base).catch(() => [] as string[]);
    for (const entry of entries) if (entry.startsWith('customer-')) await fsp.rmdir(path.join(base, entry)).catch(() => undefined);
  }
}
