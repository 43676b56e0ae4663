/**
 * The job runner on the test dialect, driven by a fake clock: a raffle draws at its time with nobody opening
 * the raffle, a draw that fell due while the service was down runs at the next start, two nodes on one
 * PostgreSQL database run each due job once (the raffle credited once, each occurrence of a recurring job run
 * by one node), and retention deletes what expired beyond its grace while keeping the rest.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { createServices, type Services } from '../../src/services.js';
import { createStorage } from '../../src/storage/database.js';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { openTestStorage, TEST_DATABASE_URL, type TestStorage } from '../helpers/databases.js';
import { signUp, verifyEmail, type SignedUp } from '../chassis/support.js';
import { expectInvariants } from '../payments/support.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const config = {
  jobs: { pollIntervalMs: MINUTE, alertScanIntervalMs: 5 * MINUTE, retentionIntervalMs: 60 * MINUTE, retentionGraceMs: DAY },
  promotions: {
    checkin: { enabled: true },
    raffle: { enabled: true, prizeMicros: 7_000_000, winners: 1, periodDays: 1, entriesPerCheckin: 1 },
  },
  // The check-ins here are about the draw: no human check for the claim.
  accounts: { registration: 'open', humanCheck: { requiredFor: ['register'], cost: 1, maxCounter: 64 } },
} as never;

describe('job runner', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const checkIn = async (context: TestContext, who: SignedUp) => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/daily-checkin/claim',
      headers: bearer(who.systemToken),
      payload: {},
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const raffleGrants = (storage: Pick<TestStorage, 'db'>) =>
    storage.db.selectFrom('promotion_grants').select(['customer_id', 'amount_micros']).where('promotion', '=', 'raffle').execute();
  const drawJobs = (storage: TestStorage) =>
    storage.db.selectFrom('scheduled_jobs').selectAll().where('kind', '=', 'raffle.draw').execute();
  /** A verified customer with a raffle entry (today's check-in opens the day's raffle and schedules its draw). */
  const entrant = async (context: TestContext) => {
    const who = await signUp(context, 'entrant');
    await verifyEmail(context, who);
    await checkIn(context, who);
    return who;
  };

  it('draws at the draw time by itself, and a draw that fell due while the service was down at the next start', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 1, 10));
    const storage = await openTestStorage();
    cleanups.push(() => storage.destroy());
    const first = await createTestContext({ clock, storage, config });
    const player = await entrant(first);
    const [job] = await drawJobs(storage);
    expect(job).toMatchObject({ job_key: expect.any(String), run_at: Date.UTC(2026, 6, 2), done_at: null });

    // Stopped before the draw time; the time passes while no node runs.
    await first.app.close();
    await first.services.close();
    clock.set(Date.UTC(2026, 6, 2, 6));
    const reopened = await createStorage(storage.location);
    expect(await raffleGrants(reopened)).toEqual([]);

    // The next start finds the missed draw and runs it, once; nobody opens the raffle.
    const second = await createTestContext({
      clock,
      config,
      storage: Object.assign(Object.create(reopened) as typeof reopened, reopened, {
        location: storage.location,
        destroy: () => reopened.close(),
      }),
    });
    cleanups.push(() => second.close());
    await second.services.jobs.idle();
    expect(await raffleGrants(reopened)).toEqual([{ customer_id: player.customerId, amount_micros: 7_000_000 }]);
    const [done] = await drawJobs(reopened);
    expect(done).toMatchObject({ runs: 1, attempts: 0, lease_until: 0 });
    expect(Number(done!.done_at)).toBe(Date.UTC(2026, 6, 2, 6));

    // A raffle opened while this node runs draws at its time, again with nobody looking.
    const next = await entrant(second);
    clock.set(Date.UTC(2026, 6, 3) - 1);
    await second.services.jobs.idle();
    expect(await raffleGrants(reopened)).toHaveLength(1);
    clock.set(Date.UTC(2026, 6, 3));
    await second.services.jobs.idle();
    expect(await raffleGrants(reopened)).toHaveLength(2);
    const status = (await second.app.inject({ method: 'GET', url: '/api/v1/raffle', headers: bearer(next.systemToken) })).json();
    expect(status.past_draws[0]).toMatchObject({ winners: [expect.any(String)], you_won: true });

    // The operator sees the stored jobs; customers do not.
    const listed = await second.app.inject({ method: 'GET', url: '/api/admin/jobs', headers: operatorHeaders });
    expect(listed.statusCode).toBe(200);
    const kinds = (listed.json().data as { kind: string; runs: number; recurring: boolean }[]).map((job) => job.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['raffle.draw', 'alerts.scan', 'retention', 'auto-topup.sweep', 'mail.retry', 'engagement.digest']),
    );
    expect(listed.json().data.filter((job: { kind: string; runs: number }) => job.kind === 'raffle.draw' && job.runs === 1)).toHaveLength(
      2,
    );
    expect((await second.app.inject({ method: 'GET', url: '/api/admin/jobs', headers: bearer(next.systemToken) })).statusCode).toBe(404);
  });

  it('retention deletes expired sign-in rows and events beyond retention after their grace, keeping the rest', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 1, 10));
    const context = await createTestContext({ clock, config: { ...(config as object), agent: { eventRetention: 10 } } as never });
    cleanups.push(() => context.close());
    const who = await signUp(context, 'retained');
    const db = context.storage.db;
    const now = clock.nowMs();
    const session = (hash: string, expiresAt: number) => ({
      customer_id: who.customerId,
      session_hash: hash,
      created_at: now - 10 * DAY,
      last_seen_at: now,
      expires_at: expiresAt,
      ended_at: null,
    });
    await db
      .insertInto('dashboard_sessions')
      .values([session('expired-long-ago', now - 2 * DAY), session('expired-within-grace', now - 1_000), session('live', now + DAY)])
      .execute();
    await db
      .insertInto('password_resets')
      .values([
        { customer_id: who.customerId, token_hash: 'old', expires_at: now - 2 * DAY, created_at: now - 3 * DAY },
        { customer_id: who.customerId, token_hash: 'fresh', expires_at: now + DAY, created_at: now },
      ])
      .execute();
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: bearer(who.systemToken), payload: {} });
    expect(project.statusCode, project.body).toBe(201);
    const projectId = project.json().id as string;
    // Written as another node's log would have (this node's own trimming never saw them).
    await db
      .insertInto('project_events')
      .values(
        Array.from({ length: 25 }, (_, index) => ({
          project_id: projectId,
          seq: index + 1,
          type: 'test/event',
          data: '{}',
          created_at: now,
        })),
      )
      .execute();

    await context.services.jobs.idle();
    clock.advance(60 * MINUTE);
    await context.services.jobs.idle();
    const sessions = (
      await db.selectFrom('dashboard_sessions').select('session_hash').where('customer_id', '=', who.customerId).execute()
    ).map((row) => row.session_hash);
    expect(sessions).toContain('expired-within-grace');
    expect(sessions).toContain('live');
    expect(sessions).not.toContain('expired-long-ago');
    expect(
      (await db.selectFrom('password_resets').select('token_hash').where('customer_id', '=', who.customerId).execute()).map(
        (row) => row.token_hash,
      ),
    ).toEqual(['fresh']);
    const seqs = (await db.selectFrom('project_events').select('seq').where('project_id', '=', projectId).orderBy('seq').execute()).map(
      (row) => Number(row.seq),
    );
    expect(seqs).toEqual(Array.from({ length: 10 }, (_, index) => index + 16));
    const [retention] = await db.selectFrom('scheduled_jobs').selectAll().where('kind', '=', 'retention').execute();
    expect(retention).toMatchObject({ runs: 1, recurring: 1 });
    expect(Number(retention!.run_at)).toBe(Date.UTC(2026, 6, 1, 12));
  });

  // Two processes share a PostgreSQL database (SQLite is one process per file).
  it.skipIf(!TEST_DATABASE_URL)('two nodes on one database run each due job once', async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 1, 10));
    const context = await createTestContext({ clock, config });
    cleanups.push(() => context.close());
    // The second node: its own pool and services (its own job runner) on the same database and clock.
    const otherStorage = await createStorage(context.storage.location);
    const other: Services = await createServices(context.config, { storage: otherStorage, clock, logger: pino({ level: 'silent' }) });
    cleanups.push(() => other.close());
    expect(other.jobs.runner.nodeId).not.toBe(context.services.jobs.runner.nodeId);

    const players = [await entrant(context), await entrant(context), await entrant(context)];
    const scans = async () =>
      Number(
        (await context.storage.db.selectFrom('scheduled_jobs').select('runs').where('kind', '=', 'alerts.scan').executeTakeFirstOrThrow())
          .runs,
      );
    const before = await scans();
    for (let occurrence = 1; occurrence <= 3; occurrence++) {
      clock.advance(5 * MINUTE);
      await Promise.all([context.services.jobs.idle(), other.jobs.idle()]);
      expect(await scans()).toBe(before + occurrence);
    }

    clock.set(Date.UTC(2026, 6, 2));
    await Promise.all([context.services.jobs.idle(), other.jobs.idle()]);
    const grants = await raffleGrants(context.storage);
    expect(grants).toHaveLength(1);
    expect(players.map((player) => player.customerId)).toContain(grants[0]!.customer_id);
    const [draw] = await drawJobs(context.storage);
    expect(draw).toMatchObject({ runs: 1 });
    await expectInvariants(context);
  });
});
