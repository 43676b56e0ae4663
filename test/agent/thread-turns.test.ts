import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/kernel/errors.js';
import { applyNotification, ThreadTurns, type ThreadState } from '../../src/agent/thread-state.js';

const CONFLICT = 'A turn is already running on this project; interrupt it or wait for it to finish';

/** A turn/start whose answer the test releases. */
function pendingStart() {
  let answer!: (turnId: string) => void;
  let fail!: (error: Error) => void;
  const reply = new Promise<{ turn: { id: string } }>((resolve, reject) => {
    answer = (turnId) => resolve({ turn: { id: turnId } });
    fail = reject;
  });
  return { reply, answer, fail };
}

function setUp() {
  const turns = new ThreadTurns<ThreadState>();
  const state = turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
  const notify = (method: string, turnId: string) =>
    applyNotification(state, new Map(), method, { threadId: 'thr_1', turn: { id: turnId } });
  return { turns, state, notify };
}

async function conflictOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('ThreadTurns', () => {
  it('lets exactly one of two concurrent starts run; the other is a 409 naming no turn yet', async () => {
    const { turns } = setUp();
    const first = pendingStart();
    let secondRan = false;
    const started = turns.start('thr_1', CONFLICT, () => first.reply);
    const refused = await conflictOf(
      turns.start('thr_1', CONFLICT, async () => {
        secondRan = true;
        return { turn: { id: 'turn_2' } };
      }),
    );
    expect(secondRan).toBe(false);
    expect({ code: refused.code, status: refused.status, message: refused.message, details: refused.details }).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: CONFLICT,
      details: { turn_id: null },
    });
    expect(turns.isBusy(7)).toBe(true);

    first.answer('turn_1');
    await expect(started).resolves.toEqual({ turn: { id: 'turn_1' } });
    expect(turns.activeTurn('thr_1')).toBe('turn_1');
    const whileRunning = await conflictOf(turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_3' } })));
    expect(whileRunning.details).toEqual({ turn_id: 'turn_1' });
  });

  it('frees the thread when the turn completes, and then accepts the next start', async () => {
    const { turns, notify } = setUp();
    await turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_1' } }));
    expect(notify('turn/completed', 'turn_1')).toEqual({ endedTurnId: 'turn_1' });
    expect(turns.activeTurn('thr_1')).toBeNull();
    expect(turns.isBusy(7)).toBe(false);
    await turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_2' } }));
    expect(turns.activeTurn('thr_1')).toBe('turn_2');
  });

  // The notifications keep their order (started before completed); the start reply may come at any point.
  it.each([
    ['reply, started, completed', ['reply', 'turn/started', 'turn/completed']],
    ['started, reply, completed', ['turn/started', 'reply', 'turn/completed']],
    ['started, completed, reply', ['turn/started', 'turn/completed', 'reply']],
    ['completed before the reply, with no turn/started seen', ['turn/completed', 'reply']],
  ])('leaves the thread free whatever the order: %s', async (_name, order) => {
    const { turns, notify } = setUp();
    const pending = pendingStart();
    const started = turns.start('thr_1', CONFLICT, () => pending.reply);
    for (const step of order) {
      if (step === 'reply') {
        pending.answer('turn_1');
        await started;
      } else {
        notify(step, 'turn_1');
      }
    }
    expect(turns.activeTurn('thr_1')).toBeNull();
    expect(turns.isBusy(7)).toBe(false);
    await expect(turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_2' } }))).resolves.toEqual({ turn: { id: 'turn_2' } });
  });

  it('leaves the thread free when the start fails, and passes the failure on', async () => {
    const { turns } = setUp();
    const pending = pendingStart();
    const started = turns.start('thr_1', CONFLICT, () => pending.reply);
    pending.fail(new Error('refused'));
    await expect(started).rejects.toThrow('refused');
    expect(turns.isBusy(7)).toBe(false);
    expect(turns.activeTurn('thr_1')).toBeNull();
  });

  it('clears only the crashed customer’s running and starting turns', async () => {
    const { turns } = setUp();
    turns.remember('thr_2', { projectId: 'prj_2', customerId: 7 });
    turns.remember('thr_other', { projectId: 'prj_3', customerId: 8 });
    await turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_1' } }));
    void turns.start('thr_2', CONFLICT, () => pendingStart().reply);
    await turns.start('thr_other', CONFLICT, async () => ({ turn: { id: 'turn_9' } }));

    expect(turns.crashed(7).map((state) => state.projectId)).toEqual(['prj_1', 'prj_2']);
    expect(turns.isBusy(7)).toBe(false);
    expect(turns.isBusy(8)).toBe(true);
    expect(turns.activeTurn('thr_other')).toBe('turn_9');
  });

  it('keeps a remembered thread’s state and forgets only an idle thread', async () => {
    const { turns, state } = setUp();
    await turns.start('thr_1', CONFLICT, async () => ({ turn: { id: 'turn_1' } }));
    expect(turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 })).toBe(state);
    turns.forgetIdle('thr_1');
    expect(turns.activeTurn('thr_1')).toBe('turn_1');

    turns.remember('thr_idle', { projectId: 'prj_2', customerId: 7 });
    turns.forgetIdle('thr_idle');
    expect(turns.get('thr_idle')).toBeUndefined();
    expect(turns.ofCustomer(7)).toEqual([state]);
  });

  it('refuses a start on a thread it does not track, without running it', async () => {
    const { turns } = setUp();
    let ran = false;
    const error = await conflictOf(
      turns.start('thr_unknown', CONFLICT, async () => {
        ran = true;
        return { turn: { id: 'turn_1' } };
      }),
    );
    expect(error.code).toBe('INTERNAL');
    expect(ran).toBe(false);
  });
});
