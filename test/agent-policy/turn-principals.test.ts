import { describe, expect, it } from 'vitest';
import type { CustomerPrincipal } from '../../src/accounts/principal.js';
import { TURN_CREDENTIAL_KEY, TurnPrincipals, type TurnCredential } from '../../src/accounts/turn-principals.js';
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
const credentialOf = (credential: TurnCredential) => credential.metadata[TURN_CREDENTIAL_KEY]!;
const metadata = (threadId: string, credential?: string) =>
  JSON.stringify({ thread_id: threadId, turn_id: 't', request_kind: 'turn', ...(credential ? { [TURN_CREDENTIAL_KEY]: credential } : {}) });

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}
const codeOf = (run: () => unknown) => {
  const error = refusal(run);
  expect(error.status).toBe(403);
  return (error.details as { code: string }).code;
};

/** Starts a turn on the thread as `by`; answers the credential the start was handed. */
async function startTurn(turns: ThreadTurns<ThreadState>, threadId: string, turnId: string, by: CustomerPrincipal) {
  let handed!: string;
  await turns.start(threadId, 'busy', async (credential) => ((handed = credentialOf(credential)), { turn: { id: turnId } }), by);
  return handed;
}

describe('TurnPrincipals', () => {
  it('acts as the starter of the running turn while it starts and runs, and refuses once it ended', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    const state = turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    let duringStart: CustomerPrincipal | undefined;
    let credential = '';
    await turns.start(
      'thr_1',
      'busy',
      async (handed) => {
        credential = credentialOf(handed);
        // The app-server may call the model before turn/start answers.
        duringStart = principals.resolve(runtime, metadata('thr_1', credential));
        return { turn: { id: 'turn_1' } };
      },
      starter,
    );
    expect(credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(duringStart).toMatchObject({ keyId: 5, policy: starter.policy, agentTurn: { threadId: 'thr_1' } });
    expect(principals.resolve(runtime, metadata('thr_1', credential))).toMatchObject({ keyId: 5 });
    applyNotification(state, new Map(), 'turn/completed', { threadId: 'thr_1', turn: { id: 'turn_1' } });
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_1', credential)))).toBe('no_running_turn');
  });

  it('a credential acts only for its own thread, and a later turn voids the earlier turn’s credential', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    const a = turns.remember('thr_a', { projectId: 'prj_a', customerId: 7 });
    turns.remember('thr_b', { projectId: 'prj_b', customerId: 7 });
    const system: CustomerPrincipal = { ...starter, keyId: 6, policy: {} };
    const credentialA = await startTurn(turns, 'thr_a', 'turn_a1', starter);
    const credentialB = await startTurn(turns, 'thr_b', 'turn_b1', system);
    // A's credential naming B (billed as B's unrestricted starter) is refused; each acts for its own thread.
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_b', credentialA)))).toBe('turn_credential_mismatch');
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_b')))).toBe('no_running_turn');
    expect(principals.resolve(runtime, metadata('thr_a', credentialA))).toMatchObject({ keyId: 5 });
    expect(principals.resolve(runtime, metadata('thr_b', credentialB))).toMatchObject({ keyId: 6 });
    // A's next turn: the first turn's credential is void even though the thread runs again.
    applyNotification(a, new Map(), 'turn/completed', { threadId: 'thr_a', turn: { id: 'turn_a1' } });
    const next = await startTurn(turns, 'thr_a', 'turn_a2', starter);
    expect(next).not.toBe(credentialA);
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_a', credentialA)))).toBe('no_running_turn');
    expect(principals.resolve(runtime, metadata('thr_a', next))).toMatchObject({ keyId: 5 });
    // A turn the app-server started by itself (no turn/start of ours) gets nothing from the earlier credential.
    applyNotification(a, new Map(), 'turn/completed', { threadId: 'thr_a', turn: { id: 'turn_a2' } });
    applyNotification(a, new Map(), 'turn/started', { threadId: 'thr_a', turn: { id: 'turn_a3' } });
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_a', next)))).toBe('no_running_turn');
  });

  it('refuses a missing, malformed or oversized header, an unknown thread and another customer’s thread', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 8 });
    let refusals: number[] = [];
    await turns.start(
      'thr_1',
      'busy',
      async (handed) => {
        const credential = credentialOf(handed);
        refusals = [
          undefined,
          '',
          'not json',
          '[]',
          '{"thread_id":5}',
          metadata('thr_unknown'),
          metadata('thr_1'),
          metadata('thr_1', 'forged'),
          metadata('thr_1', credential),
          `{"thread_id":"thr_1","${TURN_CREDENTIAL_KEY}":"${credential}","pad":"${'x'.repeat(5000)}"}`,
        ].map((header) => refusal(() => principals.resolve(runtime, header)).status);
        return { turn: { id: 'turn_1' } };
      },
      { ...starter, customerId: 8 },
    );
    expect(refusals).toEqual([403, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
  });

  it('keeps the runtime principal (wallet billing, no key policy) for a turn an operator started', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    let credential = '';
    await turns.start('thr_1', 'busy', async (handed) => ((credential = credentialOf(handed)), { turn: { id: 'turn_1' } }), {
      kind: 'operator',
      source: 'static',
      keyId: null,
    });
    expect(principals.resolve(runtime, metadata('thr_1', credential))).toMatchObject({ keyId: 100, agentTurn: { threadId: 'thr_1' } });
  });

  it('a failed start leaves nothing bound', async () => {
    const principals = new TurnPrincipals();
    const turns = new ThreadTurns<ThreadState>(principals);
    turns.remember('thr_1', { projectId: 'prj_1', customerId: 7 });
    let credential = '';
    const failing = async (handed: TurnCredential) => {
      credential = credentialOf(handed);
      throw new Error('refused');
    };
    await expect(turns.start('thr_1', 'busy', failing, starter)).rejects.toThrow('refused');
    expect(codeOf(() => principals.resolve(runtime, metadata('thr_1', credential)))).toBe('no_running_turn');
  });
});
