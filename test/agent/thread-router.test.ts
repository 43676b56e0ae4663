/** The thread router: each thread's app-server traffic goes to the surface that owns it, and only there. */
import { describe, expect, it } from 'vitest';
import { ThreadRouter, threadIdOf, type ThreadOwner } from '../../src/agent/thread-router.js';

function owner(name: string, seen: string[], busy = false): ThreadOwner {
  return {
    onNotification: (customerId, notification) => void seen.push(`${name}:${customerId}:${notification.method}`),
    onServerRequest: async (customerId, request) => (seen.push(`${name}:${customerId}:${request.method}`), { decision: name }),
    onCrash: (customerId) => void seen.push(`${name}:crash:${customerId}`),
    onNodeLost: (customerId, node) => void seen.push(`${name}:lost:${customerId}:${node}`),
    isBusy: () => busy,
    runningTurns: () => [],
    refuseTurnStarts: () => undefined,
    onStopping: async (customerId, reason) => void seen.push(`${name}:stopping:${customerId}:${reason}`),
  };
}

describe('ThreadRouter', () => {
  it('hands a thread’s notifications and requests to its owner only, for its customer only', async () => {
    const seen: string[] = [];
    const router = new ThreadRouter();
    const project = owner('project', seen);
    const direct = owner('direct', seen);
    router.route('thr_p', 1, project);
    router.route('thr_d', 1, direct);
    router.handleNotification(1, { method: 'turn/started', params: { threadId: 'thr_p' } });
    router.handleNotification(1, { method: 'thread/started', params: { thread: { id: 'thr_d' } } });
    router.handleNotification(2, { method: 'turn/started', params: { threadId: 'thr_p' } });
    router.handleNotification(1, { method: 'turn/started', params: { threadId: 'thr_unknown' } });
    router.handleNotification(1, { method: 'account/rateLimits/updated', params: {} });
    expect(
      await router.handleServerRequest(1, { id: 7, method: 'item/commandExecution/requestApproval', params: { threadId: 'thr_d' } }),
    ).toEqual({ decision: 'direct' });
    await expect(
      router.handleServerRequest(2, { id: 8, method: 'item/commandExecution/requestApproval', params: { threadId: 'thr_d' } }),
    ).rejects.toThrow(/not supported/);
    await expect(router.handleServerRequest(1, { id: 9, method: 'item/tool/requestUserInput', params: {} })).rejects.toThrow(
      /not supported/,
    );
    expect(seen).toEqual(['project:1:turn/started', 'direct:1:thread/started', 'direct:1:item/commandExecution/requestApproval']);
  });

  it('stops routing a thread only for its owner, and tells every owner of crashes; busy when any owner is', async () => {
    const seen: string[] = [];
    const router = new ThreadRouter();
    const project = owner('project', seen);
    const direct = owner('direct', seen, true);
    router.register(project);
    router.route('thr_d', 3, direct);
    router.unroute('thr_d', project);
    expect(router.ownerOf('thr_d', 3)).toBe(direct);
    router.unroute('thr_d', direct);
    expect(router.ownerOf('thr_d', 3)).toBeUndefined();
    await router.crashed(3);
    await router.nodeLost(3, 'node-b');
    expect(seen).toEqual(['project:crash:3', 'direct:crash:3', 'project:lost:3:node-b', 'direct:lost:3:node-b']);
    expect(router.isBusy(3)).toBe(true);
  });

  it('reads the thread id from threadId or the thread a notification carries', () => {
    expect(threadIdOf({ threadId: 'a' })).toBe('a');
    expect(threadIdOf({ thread: { id: 'b' } })).toBe('b');
    expect(threadIdOf({ thread: null })).toBeUndefined();
    expect(threadIdOf(null)).toBeUndefined();
  });
});
