/**
 * The workspace quota as the service enforces it at turn and thread starts: a customer whose workspace root
 * (every project) holds more than `agent.limits.workspaceQuotaBytes` starts no turn or thread (409) until files
 * are deleted. Each file is also bounded by the quota inside the sandbox (RLIMIT_FSIZE, see appserver/limits.ts),
 * so a workspace ends a turn at most one turn's writes past it. A measurement under the quota is reused for a few
 * seconds unless a turn ended since (it may have written); one over it is always taken again, so a clean-up
 * counts at once.
 */
import { diskUsage } from '../appserver/limits.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';

const REUSE_MS = 5_000;

export class WorkspaceQuota {
  private readonly measured = new Map<number, { bytes: number; atMs: number }>();

  constructor(
    private readonly quotaBytes: number,
    private readonly workspaceOf: (customerId: number) => string,
    private readonly clock: Clock,
  ) {}

  /** The workspace's size now (bytes on disk), or null when it cannot be measured. */
  async usage(customerId: number): Promise<number | null> {
    const last = this.measured.get(customerId);
    const now = this.clock.nowMs();
    if (last && last.bytes < this.quotaBytes && now - last.atMs < REUSE_MS) return last.bytes;
    const bytes = await diskUsage(this.workspaceOf(customerId));
    if (bytes === null) return null;
    this.measured.set(customerId, { bytes, atMs: now });
    return bytes;
  }

  /** A turn of the customer ended: the next start measures again. */
  forget(customerId: number): void {
    this.measured.delete(customerId);
  }

  /** Refuses (409) a turn or thread start of a customer whose workspace holds more than the quota. */
  async check(customerId: number): Promise<void> {
    if (this.quotaBytes <= 0) return;
    const bytes = await this.usage(customerId);
    if (bytes === null || bytes <= this.quotaBytes) return;
    throw new AppError(
      'CONFLICT',
      `The workspace holds ${bytes} bytes, more than its quota of ${this.quotaBytes} bytes; delete files before starting another turn`,
      { details: { reason: 'workspace_quota_exceeded', workspace_bytes: bytes, quota_bytes: this.quotaBytes } },
    );
  }
}
