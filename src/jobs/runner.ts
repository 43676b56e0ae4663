/**
 * The job runner: timed work that runs by itself, once across nodes, and survives restarts. Every due job is a
 * row of `scheduled_jobs`: a recurring job keeps its row and moves `run_at` to its next occurrence after each run;
 * a one-shot job (a raffle's draw) is marked done. Each node looks for due rows every `jobs.pollIntervalMs` (on
 * its injected clock) and claims one by a conditional update of its lease (`lease_until`, the same one-statement
 * rule as the customer leases of `src/scale`): of two nodes only one wins, and a row whose node died while running
 * it is taken over once the lease lapsed. The running node renews the lease every third of `jobs.leaseMs`, so a
 * job longer than the lease is not run a second time beside it. Nothing is kept in memory: a job due while every node was down is due at
 * the next start and runs then (once, however many occurrences were missed). Handlers are idempotent (a job may
 * run again after a node died in the middle), and each decides what "once" means for its own effects.
 */
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { JobsConfig } from '../config/sections/jobs.js';
import type { Clock, TimerHandle } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { ScheduledJobsTable } from '../storage/tables/timed-jobs.js';

type Executor = Kysely<Database> | Transaction<Database>;
type JobRow = Selectable<ScheduledJobsTable>;

const RETRY_MAX_MS = 3_600_000;
const CLAIM_PAGE = 20;
const RECURRING_KEY = 'schedule';

/** Every `everyMs`, at `offsetMs` past each multiple of it since the epoch (UTC). */
export interface Recurrence {
  everyMs: number;
  offsetMs?: number;
}

/** The first occurrence strictly after `afterMs`. */
export function nextOccurrence(recurrence: Recurrence, afterMs: number): number {
  const offset = recurrence.offsetMs ?? 0;
  return Math.floor((afterMs - offset) / recurrence.everyMs) * recurrence.everyMs + recurrence.everyMs + offset;
}

export interface JobRun {
  key: string;
  payload: unknown;
  /** When it was due (a job missed while the service was down runs later than this). */
  dueAtMs: number;
}

export interface JobDefinition {
  kind: string;
  /** A recurring job; absent for one-shot jobs added with `schedule`. */
  every?: Recurrence;
  /** One-shot jobs: failed runs before it is given up (default 10). */
  maxAttempts?: number;
  run(job: JobRun): Promise<void>;
}

export interface JobRunnerDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  nodeId: string;
  config: Pick<JobsConfig, 'pollIntervalMs' | 'leaseMs' | 'retryBaseMs'>;
}

export class JobRunner {
  private readonly definitions = new Map<string, JobDefinition>();
  private timer: TimerHandle | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(private readonly deps: JobRunnerDeps) {}

  get nodeId(): string {
    return this.deps.nodeId;
  }

  define(definition: JobDefinition): void {
    if (this.definitions.has(definition.kind)) throw new Error(`job kind ${definition.kind} is defined twice`);
    this.definitions.set(definition.kind, definition);
  }

  /** Adds a one-shot job; the same kind and key twice keeps the first (its time included). */
  async schedule(
    kind: string,
    key: string,
    runAtMs: number,
    payload: unknown = {},
    executor: Executor = this.deps.storage.db,
  ): Promise<void> {
    await executor
      .insertInto('scheduled_jobs')
      .values(newRow(kind, key, runAtMs, payload, false, this.deps.clock.nowMs()))
      .onConflict((conflict) => conflict.columns(['kind', 'job_key']).doNothing())
      .execute();
  }

  /** Stores the recurring jobs' rows (an existing row keeps its due time: a missed run is due now), then polls. */
  async start(): Promise<void> {
    const now = this.deps.clock.nowMs();
    for (const definition of this.definitions.values()) {
      if (!definition.every) continue;
      await this.deps.storage.db
        .insertInto('scheduled_jobs')
        .values(newRow(definition.kind, RECURRING_KEY, nextOccurrence(definition.every, now), {}, true, now))
        .onConflict((conflict) => conflict.columns(['kind', 'job_key']).doNothing())
        .execute();
      // A shorter recurrence than the stored row's (the operator changed it) takes effect at once.
      await this.update({ run_at: nextOccurrence(definition.every, now) })
        .where('kind', '=', definition.kind)
        .where('job_key', '=', RECURRING_KEY)
        .where('run_at', '>', nextOccurrence(definition.every, now))
        .execute();
    }
    this.timer = this.deps.clock.setInterval(() => this.poke(), this.deps.config.pollIntervalMs);
    this.timer.unref();
    this.poke();
  }

  /** Looks for due jobs now (the poll timer calls it; a call while a pass runs makes it look again after). */
  poke(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.passes()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'the job runner failed to read due jobs'))
      .finally(() => {
        this.running = null;
      });
  }

  /** Waits until this node's current pass over the due jobs (if any) finished. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.deps.clock.clearInterval(this.timer);
    await this.idle();
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      await this.runDue();
    } while (this.again && !this.closed);
  }

  /** Claims and runs due jobs until none is left that this node can claim; returns how many ran here. */
  async runDue(): Promise<number> {
    let ran = 0;
    while (!this.closed) {
      const now = this.deps.clock.nowMs();
      const due = await this.deps.storage.db
        .selectFrom('scheduled_jobs')
        .selectAll()
        .where('done_at', 'is', null)
        .where('run_at', '<=', now)
        .where('lease_until', '<=', now)
        .where('kind', 'in', [...this.definitions.keys()])
        .orderBy('run_at')
        .limit(CLAIM_PAGE)
        .execute();
      let claimed = 0;
      for (const row of due) {
        if (this.closed) break;
        const leaseUntil = await this.claim(row);
        if (leaseUntil === null) continue;
        claimed += 1;
        await this.runOne(row, leaseUntil);
      }
      ran += claimed;
      if (claimed === 0) return ran;
    }
    return ran;
  }

  /** One conditional statement: the row as read (due time and lease) becomes this node's, or another node won. */
  private async claim(row: JobRow): Promise<number | null> {
    // Leased from now, not from when the page was read: the jobs before it in the page may have run long.
    const leaseUntil = this.deps.clock.nowMs() + this.deps.config.leaseMs;
    const result = await this.deps.storage.db
      .updateTable('scheduled_jobs')
      .set({ lease_holder: this.deps.nodeId, lease_until: leaseUntil })
      .where('id', '=', row.id)
      .where('done_at', 'is', null)
      .where('run_at', '=', row.run_at)
      .where('lease_until', '=', row.lease_until)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? leaseUntil : null;
  }

  private async runOne(row: JobRow, claimedUntil: number): Promise<void> {
    const definition = this.definitions.get(row.kind)!;
    const lease = this.keepLease(row, claimedUntil);
    const mine = async (query: ReturnType<JobRunner['update']>) => {
      const leaseUntil = await lease.stop();
      await query.where('id', '=', row.id).where('lease_holder', '=', this.deps.nodeId).where('lease_until', '=', leaseUntil).execute();
    };
    try {
      await definition.run({ key: row.job_key, payload: JSON.parse(row.payload_json) as unknown, dueAtMs: Number(row.run_at) });
    } catch (error) {
      await mine(this.update(this.failure(row, definition, error)));
      return;
    }
    const now = this.deps.clock.nowMs();
    const done = definition.every ? { run_at: nextOccurrence(definition.every, Math.max(now, Number(row.run_at))) } : { done_at: now };
    await mine(
      this.update({
        ...done,
        attempts: 0,
        lease_holder: null,
        lease_until: 0,
        last_error: null,
        last_run_at: now,
        runs: Number(row.runs) + 1,
      }),
    );
  }

  /**
   * Renews the lease of a running job every third of `jobs.leaseMs` (one renewal at a time), so a job that runs
   * longer than the lease is not taken over by another node while this one still runs it. `stop` ends the
   * renewals and gives the lease as it stands.
   */
  private keepLease(row: JobRow, claimedUntil: number): { stop(): Promise<number> } {
    let leaseUntil = claimedUntil;
    let renewing: Promise<void> = Promise.resolve();
    const renew = async () => {
      const next = this.deps.clock.nowMs() + this.deps.config.leaseMs;
      if (next <= leaseUntil) return;
      const result = await this.update({ lease_until: next })
        .where('id', '=', row.id)
        .where('lease_holder', '=', this.deps.nodeId)
        .where('lease_until', '=', leaseUntil)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) leaseUntil = next;
    };
    const timer = this.deps.clock.setInterval(
      () => {
        renewing = renewing
          .then(renew)
          .catch((error: unknown) => this.deps.logger.warn({ err: error, job: row.kind, key: row.job_key }, 'renewing a job lease failed'));
      },
      Math.max(1, Math.floor(this.deps.config.leaseMs / 3)),
    );
    timer.unref();
    return {
      stop: async () => {
        this.deps.clock.clearInterval(timer);
        await renewing;
        return leaseUntil;
      },
    };
  }

  private update(values: Partial<Omit<JobRow, 'id'>>) {
    return this.deps.storage.db.updateTable('scheduled_jobs').set(values);
  }

  /** A failed run: retried after a doubling delay (a recurring job at its next occurrence if that comes first). */
  private failure(row: JobRow, definition: JobDefinition, error: unknown): Partial<Omit<JobRow, 'id'>> {
    const now = this.deps.clock.nowMs();
    const attempts = Number(row.attempts) + 1;
    const message = error instanceof Error ? error.message : String(error);
    const retryAt = now + Math.min(this.deps.config.retryBaseMs * 2 ** (attempts - 1), RETRY_MAX_MS);
    const givenUp = !definition.every && attempts >= (definition.maxAttempts ?? 10);
    this.deps.logger[givenUp ? 'error' : 'warn'](
      { err: error, job: row.kind, key: row.job_key, attempts },
      givenUp ? 'job given up' : 'job failed; retried later',
    );
    const runAt = definition.every ? Math.min(retryAt, nextOccurrence(definition.every, now)) : retryAt;
    return {
      attempts,
      last_error: message.slice(0, 2_000),
      lease_holder: null,
      lease_until: 0,
      run_at: runAt,
      ...(givenUp ? { done_at: now } : {}),
    };
  }

  /** The stored jobs (operator view): kind, key, when due, last run, failures. */
  async list(): Promise<
    {
      kind: string;
      key: string;
      run_at: string;
      recurring: boolean;
      runs: number;
      attempts: number;
      last_run_at: string | null;
      last_error: string | null;
      done_at: string | null;
    }[]
  > {
    const rows = await this.deps.storage.db.selectFrom('scheduled_jobs').selectAll().orderBy('run_at').limit(500).execute();
    const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
    return rows.map((row) => ({
      kind: row.kind,
      key: row.job_key,
      run_at: iso(row.run_at)!,
      recurring: Number(row.recurring) === 1,
      runs: Number(row.runs),
      attempts: Number(row.attempts),
      last_run_at: iso(row.last_run_at),
      last_error: row.last_error,
      done_at: iso(row.done_at),
    }));
  }
}

function newRow(kind: string, key: string, runAtMs: number, payload: unknown, recurring: boolean, nowMs: number) {
  return {
    kind,
    job_key: key,
    payload_json: JSON.stringify(payload),
    run_at: runAtMs,
    recurring: recurring ? 1 : 0,
    attempts: 0,
    lease_holder: null,
    lease_until: 0,
    last_error: null,
    last_run_at: null,
    runs: 0,
    done_at: null,
    created_at: nowMs,
  };
}
