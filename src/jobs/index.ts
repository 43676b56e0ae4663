/**
 * Timed work: the job runner and what it runs. The runner is built first (the raffle schedules its draws on it),
 * the jobs are defined once the domains exist, and `start` stores the recurring rows and starts polling.
 *
 * | job | when | what |
 * |---|---|---|
 * | `raffle.draw` | at each raffle's draw time (scheduled when it opens) | draws every raffle due and credits the winners |
 * | `alerts.scan` | every `jobs.alertScanIntervalMs` | key expiry and spending-limit alerts of every customer |
 * | `retention` | every `jobs.retentionIntervalMs` | deletes expired sign-in rows and events beyond retention |
 * | `auto-topup.sweep` | every `jobs.autoTopupIntervalMs` | charges armed auto top-ups whose wallet is below the threshold |
 * | `mail.retry` | every `jobs.mailRetryIntervalMs` | sends outbox mail whose earlier send failed |
 * | `engagement.digest` | weekly (`engagement.digestWeekday`, `digestHourUtc`) | the weekly digest mail |
 * | `engagement.product-update` | when an operator broadcasts | mails the broadcast to those who want product updates |
 */
import os from 'node:os';
import type { AccountServices } from '../accounts/index.js';
import type { BillingServices } from '../billing/index.js';
import type { PaymentServices } from '../billing/payments/index.js';
import { randomBase62 } from '../kernel/ids.js';
import type { PromotionServices } from '../promotions/index.js';
import type { BaseDeps } from '../storage/base-deps.js';
import { Engagement } from './engagement.js';
import { applyRetention } from './retention.js';
import { JobRunner } from './runner.js';

export { JobRunner, nextOccurrence, type JobDefinition } from './runner.js';

export interface TimedWork {
  runner: JobRunner;
  engagement: Engagement;
  start(): Promise<void>;
  /** Waits for the running pass and the mail and checks this process started (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface TimedWorkDomains {
  accounts: AccountServices;
  payments: PaymentServices;
  promotions: PromotionServices;
  /** Built before payments (which tell it of credited payments) by `createEngagement`; installed here. */
  engagement: Engagement;
}

/** The runner alone (built before the domains that schedule on it); `nodeId`: the scale-out node id when there is one. */
export function createJobRunner(deps: BaseDeps, nodeId?: string): JobRunner {
  return new JobRunner({
    storage: deps.storage,
    clock: deps.clock,
    logger: deps.logger.child({ domain: 'jobs' }),
    nodeId: nodeId ?? `${os.hostname()}-${process.pid}-${randomBase62(6)}`,
    config: deps.config.jobs,
  });
}

/**
 * The engagement mail, built before payments (they tell it of credited payments); `createTimedWork` installs its
 * jobs and its settlement and broadcast listeners.
 */
export function createEngagement(
  deps: BaseDeps,
  runner: JobRunner,
  domains: { accounts: AccountServices; billing: BillingServices },
): Engagement {
  const { config, storage, clock, logger } = deps;
  return new Engagement({ config, storage, clock, logger, accounts: domains.accounts, billing: domains.billing, runner });
}

export function createTimedWork(deps: BaseDeps, runner: JobRunner, domains: TimedWorkDomains): TimedWork {
  const { config, storage, clock, logger } = deps;
  const jobs = config.jobs;
  runner.define({ kind: 'raffle.draw', run: async () => void (await domains.promotions.raffle.drawDue(clock.nowMs())) });
  runner.define({ kind: 'alerts.scan', every: { everyMs: jobs.alertScanIntervalMs }, run: () => domains.accounts.alerts.scanAll() });
  runner.define({
    kind: 'retention',
    every: { everyMs: jobs.retentionIntervalMs },
    run: async () => {
      const deleted = await applyRetention(storage.db, clock.nowMs(), {
        graceMs: jobs.retentionGraceMs,
        sessionIdleMs: config.accounts.sessionIdleMinutes * 60_000,
        eventRetention: config.agent.eventRetention,
      });
      logger.info({ deleted }, 'retention applied');
    },
  });
  runner.define({
    kind: 'auto-topup.sweep',
    every: { everyMs: jobs.autoTopupIntervalMs },
    run: async () => void (await domains.payments.autoTopup.sweep()),
  });
  runner.define({
    kind: 'mail.retry',
    every: { everyMs: jobs.mailRetryIntervalMs },
    run: async () => void (await domains.accounts.outbox.retryDue()),
  });
  const { engagement } = domains;
  engagement.install();
  return {
    runner,
    engagement,
    async start() {
      // Raffles opened before their draw was a job (or whose job row was lost) get one; an existing job stays.
      for (const raffle of await domains.promotions.raffle.undrawn())
        await runner.schedule('raffle.draw', String(raffle.id), raffle.drawsAtMs);
      await runner.start();
    },
    async idle() {
      await runner.idle();
      await engagement.idle();
      await domains.accounts.outbox.idle();
    },
    async close() {
      await runner.close();
      await engagement.idle();
    },
  };
}
