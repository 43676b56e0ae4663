/**
 * The workspace catalog of the response contract: each of its keys names a route the service registers (a key
 * with a typo would document and check nothing), and its answers that are not JSON appear in /openapi.json
 * under their own media type, with 204 and redirects carrying no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspaceResponses } from '../../src/http/contract/workspace.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

type Answer = { content?: Record<string, { schema?: unknown }> };
type Document = { paths: Record<string, Record<string, { responses?: Record<string, Answer> }>> };

describe('response contract: the workspace catalog', () => {
  let context: TestContext;
  let document: Document;
  beforeAll(async () => {
    context = await createTestContext();
    document = (await context.app.inject({ method: 'GET', url: '/openapi.json' })).json() as Document;
  });
  afterAll(async () => context.close());

  const answers = (method: string, url: string) => document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]?.responses;

  it('names only registered routes, each documented with the statuses it declares', () => {
    for (const [key, statuses] of Object.entries(workspaceResponses)) {
      const [method, url] = key.split(' ') as [string, string];
      const documented = answers(method, url);
      expect(documented, key).toBeDefined();
      for (const status of Object.keys(statuses)) expect(Object.keys(documented!), key).toContain(status);
    }
  });

  it('documents event streams and downloads under their media type, and 204 and redirects without a body', () => {
    const mediaOf = (method: string, url: string, status: string) => Object.keys(answers(method, url)?.[status]?.content ?? {});
    expect(mediaOf('GET', '/api/v1/projects/:projectId/events', '200')).toEqual(['text/event-stream']);
    expect(mediaOf('GET', '/api/v1/desktop-chat/shoutbox/events', '200')).toEqual(['text/event-stream']);
    expect(mediaOf('POST', '/api/v1/desktop-chat/conversations/:conversation_id/messages', '200')).toEqual(['text/event-stream']);
    expect(mediaOf('POST', '/api/v1/desktop-chat/conversations/:conversation_id/messages', '201')).toEqual(['application/json']);
    expect(mediaOf('GET', '/api/v1/projects/:projectId/files/download', '200')).toEqual(['application/octet-stream']);
    expect(mediaOf('DELETE', '/api/v1/projects/:projectId', '204')).toEqual([]);
    expect(mediaOf('GET', '/api/v1/chatbot/idp/start', '302')).toEqual([]);
    expect(Object.keys(answers('DELETE', '/api/v1/projects/:projectId') ?? {})).toEqual(['204']);
  });
});
