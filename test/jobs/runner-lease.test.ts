/**
 * The job runner's lease under attack, two runners on one database (the test dialect) and a fake clock: a job
 * still running when its lease would have lapsed is not taken by the other node (the running node renews it);
 * a job claimed after a slow one is leased from the time it was claimed, not from when the page was read; a job
 * that fails every time is retried later and never keeps the other jobs from running.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { openTestStorage, type TestStorage } from '../helpers/databases.js';

const MINUTE = 60_000;
const LEASE = 10 * MINUTE;
const config = { pollIntervalMs: MINUTE, leaseMs: LEASE, retryBaseMs: MINUTE };

/** A handler that blocks until released, counting its runs. */
function gate() {
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  const state = {
    runs: 0,
    started: new Promise<void>((resolve) => (entered = resolve)),
    release: () => release(),
    run: async () => {
      state.runs += 1;
      if (state.runs > 1) return; // a second run (the defect) ends at once, for the expectations to say so
      entered();
      await new Promise<void>((resolve) => (release = resolve));
    },
  };
  return state;
}

describe('job runner leases', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const setUp = async () => {
    const clock = new FakeClock(Date.UTC(2026, 6, 1, 10));
    const storage: TestStorage = await openTestStorage();
    cleanups.push(() => storage.destroy());
    const logger = pino({ level: 'silent' });
    const node = (nodeId: string) => new JobRunner({ storage, clock, logger, nodeId, config });
    return { clock, storage, a: node('node-a'), b: node('node-b') };
  };
  const leaseOf = async (storage: TestStorage, key: string) =>
    Number(
      (await storage.db.selectFrom('scheduled_jobs').select('lease_until').where('job_key', '=', key).executeTakeFirstOrThrow())
        .lease_until,
    );
  /** Waits (bounded) for the predicate; the test's own expectations say what must have happened. */
  const eventually = async (predicate: () => Promise<boolean>) => {
    for (let i = 0; i < 100; i++) {
      if (await predicate()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('a job running longer than its lease stays with its node: the other node does not run it again', async () => {
    const { clock, storage, a, b } = await setUp();
    const slow = gate();
    a.define({ kind: 'slow', run: slow.run });
    b.define({ kind: 'slow', run: slow.run });
    await a.schedule('slow', 'one', clock.nowMs());
    const running = a.runDue();
    await slow.started;
    // Three lease lengths pass while it still runs; the other node looks each time.
    for (let i = 0; i < 3; i++) {
      clock.advance(LEASE / 2);
      await eventually(async () => (await leaseOf(storage, 'one')) > clock.nowMs());
      clock.advance(LEASE / 2);
      await eventually(async () => (await leaseOf(storage, 'one')) > clock.nowMs());
      expect(await b.runDue()).toBe(0);
    }
    slow.release();
    expect(await running).toBe(1);
    expect(slow.runs).toBe(1);
    const row = await storage.db.selectFrom('scheduled_jobs').selectAll().where('job_key', '=', 'one').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ runs: 1, lease_holder: null });
    expect(row.done_at).not.toBeNull();
  });

  it('a job claimed after a slow one is leased from its claim, so the other node leaves it alone', async () => {
    const { clock, storage, a, b } = await setUp();
    const first = gate();
    const second = gate();
    for (const node of [a, b]) {
      node.define({ kind: 'first', run: first.run });
      node.define({ kind: 'second', run: second.run });
    }
    await a.schedule('first', 'f', clock.nowMs() - 2);
    await a.schedule('second', 's', clock.nowMs() - 1);
    const running = a.runDue();
    await first.started;
    clock.advance(2 * LEASE);
    first.release();
    await second.started;
    expect(await leaseOf(storage, 's')).toBeGreaterThan(clock.nowMs());
    expect(await b.runDue()).toBe(0);
    second.release();
    expect(await running).toBe(2);
    expect([first.runs, second.runs]).toEqual([1, 1]);
  });

  it('a job that fails every time is retried later and does not keep the others from running', async () => {
    const { clock, storage, a } = await setUp();
    let failures = 0;
    let fine = 0;
    a.define({
      kind: 'broken',
      every: { everyMs: MINUTE },
      run: async () => {
        failures += 1;
        throw new Error('always');
      },
    });
    a.define({ kind: 'fine', every: { everyMs: MINUTE }, run: async () => void (fine += 1) });
    await a.start();
    cleanups.push(() => a.close());
    for (let i = 0; i < 10; i++) {
      clock.advance(MINUTE);
      await a.idle();
      await a.runDue();
    }
    expect(fine).toBeGreaterThanOrEqual(10);
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThanOrEqual(11);
    const broken = await storage.db.selectFrom('scheduled_jobs').selectAll().where('kind', '=', 'broken').executeTakeFirstOrThrow();
    expect(Number(broken.attempts)).toBe(failures);
    expect(broken.last_error).toBe('always');
  });
});
