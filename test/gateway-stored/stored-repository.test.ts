import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseRepository } from '../../src/gateway/stored/response-repository.js';
import { StoredObjectRepository, UnknownCursorError, type NewStoredCompletion } from '../../src/gateway/stored/stored-repository.js';
import { dialects, openTestStorage, type TestStorage } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 0, 1);

function completion(id: string, overrides: Partial<NewStoredCompletion> = {}): NewStoredCompletion {
  return {
    completionId: id,
    owner: 'key:1',
    model: 'model-a',
    completion: { id, object: 'chat.completion' },
    metadata: {},
    messages: [
      { itemId: `${id}-0`, item: { role: 'system', content: 'be brief' } },
      { itemId: `${id}-1`, item: { role: 'user', content: 'hi' } },
    ],
    createdAtMs: NOW,
    expiresAtMs: NOW + 60_000,
    ...overrides,
  };
}

describe.each(dialects)('stored object repository on %s', (dialect) => {
  let storage: TestStorage;
  let repository: StoredObjectRepository;
  let responses: ResponseRepository;
  beforeAll(async () => {
    storage = await openTestStorage(dialect);
    repository = new StoredObjectRepository(storage.db);
    responses = new ResponseRepository(storage.db);
    for (let index = 0; index < 5; index += 1) {
      await repository.insertCompletion(
        completion(`cmpl-${index}`, {
          model: index % 2 === 0 ? 'model-a' : 'model-b',
          metadata: { topic: index < 3 ? 'alpha' : 'beta', index: String(index) },
        }),
      );
    }
    await repository.insertCompletion(completion('cmpl-other', { owner: 'key:2' }));
    await repository.insertCompletion(completion('cmpl-expired', { expiresAtMs: NOW - 1 }));
  });
  afterAll(async () => storage.destroy());

  it('pages an owner’s completions in both orders with a cursor', async () => {
    const first = await repository.listCompletions('key:1', { limit: 2, order: 'asc' }, NOW);
    expect(first.data.map((row) => row.completionId)).toEqual(['cmpl-0', 'cmpl-1']);
    expect(first.hasMore).toBe(true);
    const second = await repository.listCompletions('key:1', { limit: 10, order: 'asc', after: 'cmpl-1' }, NOW);
    expect(second.data.map((row) => row.completionId)).toEqual(['cmpl-2', 'cmpl-3', 'cmpl-4']);
    expect(second.hasMore).toBe(false);
    const descending = await repository.listCompletions('key:1', { limit: 2, order: 'desc', after: 'cmpl-3' }, NOW);
    expect(descending.data.map((row) => row.completionId)).toEqual(['cmpl-2', 'cmpl-1']);
  });

  it('filters by model and by every metadata pair given', async () => {
    const byModel = await repository.listCompletions('key:1', { limit: 10, order: 'asc', model: 'model-b' }, NOW);
    expect(byModel.data.map((row) => row.completionId)).toEqual(['cmpl-1', 'cmpl-3']);
    const byPairs = await repository.listCompletions('key:1', { limit: 10, order: 'asc', metadata: { topic: 'alpha', index: '2' } }, NOW);
    expect(byPairs.data.map((row) => row.completionId)).toEqual(['cmpl-2']);
  });

  it('never shows another owner’s or an expired object, nor accepts them as cursors', async () => {
    expect(await repository.findCompletion('key:1', 'cmpl-other', NOW)).toBeUndefined();
    expect(await repository.findCompletion('key:1', 'cmpl-expired', NOW)).toBeUndefined();
    expect(await repository.findCompletion('key:2', 'cmpl-other', NOW)).toMatchObject({ completionId: 'cmpl-other' });
    await expect(repository.listCompletions('key:1', { limit: 5, order: 'asc', after: 'cmpl-other' }, NOW)).rejects.toBeInstanceOf(
      UnknownCursorError,
    );
    expect(await repository.updateCompletionMetadata('key:1', 'cmpl-other', { a: 'b' }, NOW)).toBeUndefined();
    expect(await repository.deleteCompletion('key:1', 'cmpl-other', NOW)).toBe(false);
    expect(await repository.findCompletion('key:2', 'cmpl-other', NOW)).toMatchObject({ metadata: {} });
  });

  it('replaces metadata so filters follow the update', async () => {
    const updated = await repository.updateCompletionMetadata('key:1', 'cmpl-4', { topic: 'gamma' }, NOW);
    expect(updated?.metadata).toEqual({ topic: 'gamma' });
    const gamma = await repository.listCompletions('key:1', { limit: 10, order: 'asc', metadata: { topic: 'gamma' } }, NOW);
    expect(gamma.data.map((row) => row.completionId)).toEqual(['cmpl-4']);
    const beta = await repository.listCompletions('key:1', { limit: 10, order: 'asc', metadata: { topic: 'beta' } }, NOW);
    expect(beta.data.map((row) => row.completionId)).toEqual(['cmpl-3']);
  });

  it('pages items and deletes them with their object', async () => {
    const items = await repository.listItems('cmpl-0', { limit: 1, order: 'desc' });
    expect(items.data.map((row) => row.itemId)).toEqual(['cmpl-0-1']);
    expect(items.hasMore).toBe(true);
    const rest = await repository.listItems('cmpl-0', { limit: 5, order: 'desc', after: 'cmpl-0-1' });
    expect(rest.data.map((row) => row.item)).toEqual([{ role: 'system', content: 'be brief' }]);
    expect(await repository.deleteCompletion('key:1', 'cmpl-0', NOW)).toBe(true);
    expect((await repository.listItems('cmpl-0', { limit: 5, order: 'asc' })).data).toEqual([]);
    expect(await repository.deleteCompletion('key:1', 'cmpl-0', NOW)).toBe(false);
  });

  it('moves a response only from the expected states', async () => {
    await responses.insertResponse({
      responseId: 'resp_1',
      owner: 'key:1',
      model: 'model-a',
      status: 'queued',
      background: true,
      response: { id: 'resp_1', status: 'queued' },
      request: { model: 'model-a', input: 'hi' },
      inputItems: [{ itemId: 'msg_1', item: { id: 'msg_1', type: 'message' } }],
      createdAtMs: NOW,
      expiresAtMs: NOW + 60_000,
    });
    const cancelled = await responses.transitionResponse({
      responseId: 'resp_1',
      fromStatuses: ['queued', 'in_progress'],
      status: 'cancelled',
      response: { id: 'resp_1', status: 'cancelled' },
      nowMs: NOW,
    });
    expect(cancelled).toBe(true);
    const lateCompletion = await responses.transitionResponse({
      responseId: 'resp_1',
      fromStatuses: ['queued', 'in_progress'],
      status: 'completed',
      response: { id: 'resp_1', status: 'completed' },
      nowMs: NOW,
    });
    expect(lateCompletion).toBe(false);
    expect(await responses.findResponse('key:1', 'resp_1', NOW)).toMatchObject({ status: 'cancelled', background: true });
    expect(await responses.findResponse('key:2', 'resp_1', NOW)).toBeUndefined();
  });

  it('purges expired objects with their items', async () => {
    const purged = await repository.purgeExpired(NOW + 120_000);
    expect(purged).toBeGreaterThanOrEqual(6);
    const left = await storage.db.selectFrom('gateway_stored_items').select('object_id').execute();
    expect(left).toEqual([]);
    expect(await storage.db.selectFrom('gateway_stored_metadata').select('id').execute()).toEqual([]);
    expect(await repository.purgeExpired(NOW + 120_000)).toBe(0);
  });
});
