/** Items a turn leaves open get a final state when the turn ends, in the stream and in a thread read. */
import { describe, expect, it } from 'vitest';
import { OpenItems, settledTurns } from '../../src/agent/open-items.js';

describe('open items', () => {
  it('closes the items of the ended turn only, with the status the turn ended with', () => {
    const open = new OpenItems();
    open.track('th', 'item/started', { turnId: 't1', item: { id: 'a', type: 'commandExecution', status: 'inProgress' } });
    open.track('th', 'item/started', { turnId: 't1', item: { id: 'b', type: 'agentMessage' } });
    open.track('th', 'item/completed', { turnId: 't1', item: { id: 'b', type: 'agentMessage' } });
    open.track('th', 'item/started', { turnId: 't2', item: { id: 'c', type: 'commandExecution', status: 'inProgress' } });
    expect(open.close('th', 't1', 'interrupted')).toEqual([
      { threadId: 'th', turnId: 't1', item: { id: 'a', type: 'commandExecution', status: 'interrupted' } },
    ]);
    expect(open.close('th', 't1', 'interrupted')).toEqual([]);
    expect(open.close('th', 't2', 'failed').map((closed) => (closed.item as { status: string }).status)).toEqual(['failed']);
  });

  it('settles the items of ended turns in a thread read and leaves the running turn alone', () => {
    const item = { id: 'a', type: 'commandExecution', status: 'inProgress' };
    const turns = [
      { id: 't1', status: 'interrupted', items: [item, { id: 'm', type: 'agentMessage' }] },
      { id: 't2', status: 'inProgress', items: [item] },
    ];
    const settled = settledTurns(turns, 't2');
    expect(settled[0]!.items).toEqual([
      { ...item, status: 'interrupted' },
      { id: 'm', type: 'agentMessage' },
    ]);
    expect(settled[1]).toBe(turns[1]);
    expect(turns[0]!.items[0]).toBe(item);
  });
});
