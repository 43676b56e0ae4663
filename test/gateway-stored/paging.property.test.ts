import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredObjectRepository } from '../../src/gateway/stored/stored-repository.js';
import { dialects, openTestStorage, type TestStorage } from '../helpers/databases.js';

const NOW = Date.UTC(2026, 0, 1);

describe.each(dialects)('cursor paging of stored completions on %s', (dialect) => {
  let storage: TestStorage;
  let repository: StoredObjectRepository;
  let owner = 0;
  beforeAll(async () => {
    storage = await openTestStorage(dialect);
    repository = new StoredObjectRepository(storage.db);
  });
  afterAll(async () => storage.destroy());

  it('walks every visible completion exactly once, in order, for any page size and filter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ model: fc.constantFrom('a', 'b'), tag: fc.constantFrom('x', 'y'), expired: fc.boolean() }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom('asc' as const, 'desc' as const),
        fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
        fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
        async (rows, limit, order, model, tag) => {
          owner += 1;
          const scope = `key:${owner}`;
          const ids: string[] = [];
          for (const [index, row] of rows.entries()) {
            const completionId = `cmpl-${owner}-${index}`;
            await repository.insertCompletion({
              completionId,
              owner: scope,
              model: row.model,
              completion: { id: completionId },
              metadata: { tag: row.tag },
              messages: [],
              createdAtMs: NOW,
              expiresAtMs: row.expired ? NOW - 1 : NOW + 1_000,
            });
            if (!row.expired && (model === undefined || row.model === model) && (tag === undefined || row.tag === tag))
              ids.push(completionId);
          }
          const expected = order === 'asc' ? ids : [...ids].reverse();
          const walked: string[] = [];
          let after: string | undefined;
          for (;;) {
            const page = await repository.listCompletions(
              scope,
              { limit, order, after, model, metadata: tag === undefined ? undefined : { tag } },
              NOW,
            );
            expect(page.data.length).toBeLessThanOrEqual(limit);
            walked.push(...page.data.map((row) => row.completionId));
            if (!page.hasMore) break;
            after = page.data[page.data.length - 1]!.completionId;
          }
          expect(walked).toEqual(expected);
        },
      ),
      { numRuns: 25 },
    );
  });
});
