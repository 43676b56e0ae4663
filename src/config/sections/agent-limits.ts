/**
 * Resource limits of each customer's agent sandbox (`agent.limits`): a cgroup per customer (processes, memory,
 * swap, CPU weight), size-capped temporary folders, a workspace quota, and what ends with a turn. Applied only
 * when the sandbox is bubblewrap; see docs/security.md ("Limits").
 */
import { Type, type Static } from '@sinclair/typebox';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const AgentLimitsSection = Type.Object(
  {
    /** Processes (and threads) of one customer's sandbox at once. */
    pids: Type.Integer({ minimum: 16, maximum: 1_000_000, default: 512 }),
    /** Memory of one customer's sandbox (RAM-backed temporary folders included); past it the kernel's OOM killer ends a process in it. */
    memoryBytes: Type.Integer({ minimum: 64 * MiB, default: 2 * GiB }),
    /** Swap the sandbox may use on top of `memoryBytes`. */
    swapBytes: Type.Integer({ minimum: 0, default: 0 }),
    /** CPU weight under contention (cgroup v2 `cpu.weight`, 1–10000; v1 `cpu.shares` = weight × 1024 / 100); equal for every customer by default. */
    cpuWeight: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
    /**
     * Where the per-customer cgroups are created: a cgroup path relative to the hierarchy's root (e.g.
     * `/switchyard.slice` delegated by systemd). Default: the service's own cgroup.
     */
    cgroupParent: Type.Optional(Type.String({ minLength: 1, pattern: '^/' })),
    /** `auto` uses cgroups when they can be created and falls back to rlimits (one start-up line says which); `off` uses rlimits only. */
    cgroups: Type.Union([Type.Literal('auto'), Type.Literal('off')], { default: 'auto' }),
    /** Size of each RAM-backed temporary folder of the sandbox (`/tmp`, `/var/tmp`, `/dev/shm`). */
    tmpSizeBytes: Type.Integer({ minimum: MiB, default: 512 * MiB }),
    /**
     * Size quota of a customer's workspace root (every project): no single file may grow past it, and no turn or
     * thread starts while the workspace holds more. 0 turns the quota off.
     */
    workspaceQuotaBytes: Type.Integer({ minimum: 0, default: 10 * GiB }),
    /** End every process a turn left behind (background servers, `nohup`) when the customer has no turn running any more. */
    endBackgroundProcessesAtTurnEnd: Type.Boolean({ default: false }),
    /**
     * Host-wide record of the uid ranges in use (one file per deployment): a deployment whose
     * `isolationUidFirst`/`isolationUidCount` overlaps a live one with another data dir starts no app-server.
     */
    uidClaimDir: Type.String({ minLength: 1, pattern: '^/', default: '/run/switchyard/uid-ranges' }),
  },
  { default: {}, additionalProperties: false },
);
export type AgentLimitsConfig = Static<typeof AgentLimitsSection>;
