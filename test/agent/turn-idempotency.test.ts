import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadRepository } from '../../src/agent/thread-repository.js';
import { TurnIdempotency } from '../../src/agent/turn-idempotency.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { AppError } from '../../src/kernel/errors.js';
import { dialects, openTestStorage, type TestStorage } from '../helpers/databases.js';

interface Started {
  turn_id: string;
}

describe.each(dialects)('turn idempotency on %s', (dialect) => {
  let storage: TestStorage;
  let threads: ThreadRepository;
  beforeAll(async () => {
    storage = await openTestStorage(dialect);
    threads = new ThreadRepository(storage, new FakeClock());
  });
  afterAll(async () => storage.destroy());

  it('starts once for concurrent repeats, and returns the recorded result to a later instance', async () => {
    const idempotency = new TurnIdempotency<Started>(threads);
    let starts = 0;
    const start = async () => {
      starts += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { turn_id: `turn_${starts}` };
    };
    const results = await Promise.all([1, 2, 3].map(() => idempotency.run('prj_a', 'key-1', { prompt: 'hi' }, start)));
    expect(results).toEqual([{ turn_id: 'turn_1' }, { turn_id: 'turn_1' }, { turn_id: 'turn_1' }]);
    expect(starts).toBe(1);

    // After a restart only the database remembers the key.
    const restarted = new TurnIdempotency<Started>(threads);
    await expect(restarted.run('prj_a', 'key-1', { prompt: 'hi' }, start)).resolves.toEqual({ turn_id: 'turn_1' });
    expect(starts).toBe(1);
  });

  it('refuses the same key with a different request (in flight or recorded) with a 422 and starts nothing', async () => {
    const idempotency = new TurnIdempotency<Started>(threads);
    let starts = 0;
    const start = async () => ({ turn_id: `turn_${(starts += 1)}` });
    const first = idempotency.run('prj_b', 'key-1', { prompt: 'hi' }, start);
    const whileInFlight = idempotency.run('prj_b', 'key-1', { prompt: 'other' }, start);
    await expect(whileInFlight).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [{ loc: ['header', 'idempotency-key'], type: 'idempotency_mismatch' }],
    });
    await first;
    const recorded = await idempotency.run('prj_b', 'key-1', { prompt: 'other' }, start).catch((error: unknown) => error);
    expect(recorded).toBeInstanceOf(AppError);
    expect((recorded as AppError).status).toBe(422);
    expect(starts).toBe(1);
  });

  it('keeps keys apart per project, and records nothing when the start fails', async () => {
    const idempotency = new TurnIdempotency<Started>(threads);
    await idempotency.run('prj_c', 'key-1', { prompt: 'hi' }, async () => ({ turn_id: 'turn_c' }));
    await expect(idempotency.run('prj_d', 'key-1', { prompt: 'hi' }, async () => ({ turn_id: 'turn_d' }))).resolves.toEqual({
      turn_id: 'turn_d',
    });

    await expect(idempotency.run('prj_e', 'key-1', { prompt: 'hi' }, async () => Promise.reject(new Error('busy')))).rejects.toThrow(
      'busy',
    );
    expect(await threads.findTurnRequest('prj_e', 'key-1')).toBeNull();
    await expect(idempotency.run('prj_e', 'key-1', { prompt: 'hi' }, async () => ({ turn_id: 'turn_e' }))).resolves.toEqual({
      turn_id: 'turn_e',
    });
  });
});
