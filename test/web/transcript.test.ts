/** The agent view's transcript fold: friendly credit and limit errors told once, final states, human labels. */
import { describe, expect, it } from 'vitest';
import { applyEvent, EMPTY, friendlyError, humanize, type Transcript } from '../../web/dashboard/agent/transcript.js';

const RAW_402 = 'unexpected status 402 Payment Required: {"detail":"Insufficient balance"}, url: http://127.0.0.1:8080/v1/responses';

function fold(frames: [string, Record<string, unknown>][]): Transcript {
  return frames.reduce((state, [type, data], index) => applyEvent(state, type, index + 1, data), EMPTY);
}

describe('agent transcript', () => {
  it('tells an empty wallet once, without the raw status line or the URL', () => {
    const state = fold([
      ['turn/started', { turn: { id: 't1' } }],
      ['error', { error: { message: RAW_402 }, willRetry: false }],
      ['turn/completed', { turn: { id: 't1', status: 'failed', error: { message: RAW_402 } } }],
    ]);
    const billing = state.entries.filter((entry) => entry.kind === 'billing');
    expect(billing.map((entry) => entry.text)).toEqual([
      'Your wallet has no credit left for this turn, so the agent could not reach the model.',
    ]);
    expect(JSON.stringify(state.entries)).not.toMatch(/unexpected status|url:/);
    expect(state.entries.at(-1)!.text).toBe('Turn failed');
  });

  it('reads a 429 as a limit, skips errors Codex retries, and strips the URL from any other error', () => {
    expect(friendlyError('unexpected status 429 Too Many Requests: slow down, url: http://x/v1/responses').kind).toBe('billing');
    expect(friendlyError('stream disconnected before completion, url: http://x/v1/responses')).toEqual({
      kind: 'notice',
      text: 'Error: stream disconnected before completion',
    });
    const retried = fold([['error', { error: { message: 'stream disconnected' }, willRetry: true }]]);
    expect(retried.entries).toEqual([]);
    // A second turn failing the same way is told again.
    const twice = fold([
      ['turn/started', { turn: { id: 't1' } }],
      ['error', { error: { message: RAW_402 } }],
      ['turn/completed', { turn: { id: 't1', status: 'failed' } }],
      ['turn/started', { turn: { id: 't2' } }],
      ['error', { error: { message: RAW_402 } }],
    ]);
    expect(twice.entries.filter((entry) => entry.kind === 'billing')).toHaveLength(2);
  });

  it('ends an entry still running when its turn ends, and labels kinds and decisions in words', () => {
    const state = fold([
      ['turn/started', { turn: { id: 't1' } }],
      ['item/started', { item: { id: 'c1', type: 'commandExecution', command: 'sleep 9', status: 'inProgress' } }],
      ['item/started', { item: { id: 'w1', type: 'webSearch', status: 'inProgress' } }],
      ['approval/requested', { kind: 'commandExecution', command: ['bash', '-lc', 'sleep 9'] }],
      ['approval/resolved', { decision: 'acceptForSession' }],
      ['turn/completed', { turn: { id: 't1', status: 'interrupted' } }],
    ]);
    expect(state.entries.filter((entry) => entry.status !== undefined).map((entry) => [entry.key, entry.status])).toEqual([
      ['c1', 'interrupted'],
      ['w1', 'interrupted'],
    ]);
    expect(state.entries.find((entry) => entry.key === 'w1')!.label).toBe('Web search');
    expect(state.entries.map((entry) => entry.text)).toContain('Approval requested: run a command — bash -lc sleep 9');
    expect(state.entries.map((entry) => entry.text)).toContain('Approval accepted for this session');
    expect(humanize('commandExecution')).toBe('Command');
    expect(humanize('someNewKind')).toBe('Some new kind');
  });
});
