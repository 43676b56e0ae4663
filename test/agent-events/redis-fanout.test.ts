import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { seqs, SseClient } from './sse-client.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('project events across nodes through Redis', () => {
  let appending: TestContext;
  let serving: TestContext;

  beforeAll(async () => {
    appending = await createTestContext({ env: { REDIS_URL } });
    // A second node on the same database, as in a scale-out deployment.
    serving = await createTestContext({ env: { REDIS_URL }, storage: appending.storage });
  });
  afterAll(async () => {
    await serving.app.close();
    await serving.services.projectEvents.close();
    await appending.close();
  });

  it('delivers events appended on one node to SSE clients of another, in order and once', async () => {
    const customer = await appending.services.customers.create({ email: 'nodes@example.com' });
    const project = await appending.services.projects.create(customer.customer.id);
    const url = await serving.listen();
    const client = await SseClient.connect(`${url}/api/v1/projects/${project.id}/events`, bearer(customer.systemToken.key));
    for (let attempt = 0; attempt < 200 && serving.services.projectEvents.stats().subscribers === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(Array.from({ length: 60 }, (_, index) => appending.services.projectEvents.append(project.id, 'turn/plan', { index })));
    await client.waitFor((c) => c.events.length === 60);
    expect(seqs(client.events)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    client.close();
  });
});
