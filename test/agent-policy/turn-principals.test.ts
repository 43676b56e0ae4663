import { describe, expect, it } from 'vitest';
import type { CustomerPrincipal } from '../../src/accounts/principal.js';
import { TurnPrincipals } from '../../src/accounts/turn-principals.js';
import { ThreadTurns, applyNotification, type ThreadState } from '../../src/agent/thread-state.js';
import { AppError } from '../../src/kernel/errors.js';

const runtime: CustomerPrincipal = {
  kind: 'customer',
  customerId: 7,
  keyId: 100,
  keyKind: 'wallet',
  policy: { surfaces: ['gateway'], agentRuntime: true },
  vip: false,
};
const starter: CustomerPrincipal = {
  kind: 'customer',
  customerId: 7,
  keyId: 5,
  keyKind: 'user',
  policy: { models: ['m'], spendingLimitMicros: 10 },
  vip: false,
};
const metadata = (threadId: string) => JSON.stringify({ thread_id: threadId, turn_id: 't', request_kind: 'turn' });

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('TurnPrincipals', () => {
  it('acts as the starter of the running turn while it starts and runs, and refuses once it ended', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    const state = turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    let duringStart: CustomerPrincipal | undefined;
    await turns.start(
      'thr_1',
      'busy',
      async () => {
        // The app-server may call the model before turn/start answers.
        duringStart = principals.resolve(runtime, metadata('thr_1'));
        return { turn: { id: 'turn_1' } };
      },
      starter,
    );
    expect(duringStart).toMatchObject({ keyId: 5, policy: starter.policy, agentTurn: { threadId: 'thr_1' } });
    expect(principals.resolve(runtime, metadata('thr_1'))).toMatchObject({ keyId: 5 });
    applyNotification(state, new Map(), 'turn/completed', { threadId: 'thr_1', turn: { id: 'turn_1' } });
    expect(refusal(() => principals.resolve(runtime, metadata('thr_1'))).status).toBe(403);
  });

  it('refuses a missing, malformed or oversized header, an unknown thread and another customer’s thread', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 8 });
    let refusals: number[] = [];
    await turns.start(
      'thr_1',
      'busy',
      async () => {
        refusals = [
          undefined,
          '',
          'not json',
          '[]',
          '{"thread_id":5}',
          metadata('thr_unknown'),
          metadata('thr_1'),
          `{"thread_id":"thr_1","pad":"${'x'.repeat(5000)}"}`,
        ].map((header) => refusal(() => principals.resolve(runtime, header)).status);
        return { turn: { id: 'turn_1' } };
      },
      { ...starter, customerId: 8 },
    );
    expect(refusals).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
  });

  it('keeps the runtime principal (wallet billing, no key policy) for a turn an operator started', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    await turns.start('thr_1', 'busy', async () => ({ turn: { id: 'turn_1' } }), { kind: 'operator', source: 'static', keyId: null });
    expect(principals.resolve(runtime, metadata('thr_1'))).toMatchObject({ keyId: 100, agentTurn: { threadId: 'thr_1' } });
  });

  it('a failed start leaves nothing bound', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    await expect(turns.start('thr_1', 'busy', async () => Promise.reject(new Error('refused')), starter)).rejects.toThrow('refused');
    expect(refusal(() => principals.resolve(runtime, metadata('thr_1'))).status).toBe(403);
  });
});
