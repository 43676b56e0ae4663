import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp } from '../chassis/support.js';

/** Every desktop, desktop-chat, assistant-desktop, coder and chat-bot route of the service spec, as the spec lists it. */
const ROUTES: [string, string][] = [
  ['/api/v1/desktop/bootstrap', 'get'],
  ['/api/v1/desktop/bug-report', 'post'],
  ['/api/v1/desktop/coder/projects', 'get'],
  ['/api/v1/desktop/coder/projects', 'post'],
  ['/api/v1/desktop/coder/projects/purchase-slot', 'post'],
  ['/api/v1/desktop/coder/projects/{project_name}', 'delete'],
  ['/api/v1/desktop/coding-session', 'get'],
  ['/api/v1/desktop/coding-session', 'put'],
  ['/api/v1/desktop/presence', 'post'],
  ['/api/v1/assistant-desktop/sync', 'get'],
  ['/api/v1/assistant-desktop/sync', 'put'],
  ['/api/v1/assistant-desktop/object-workspace', 'post'],
  ['/api/v1/assistant-desktop/object-workspace/projects', 'post'],
  ['/api/v1/assistant-desktop/object-workspace/projects/{project_id}', 'delete'],
  ['/api/v1/assistant-desktop/object-workspace/repositories/{repository_name}', 'post'],
  ['/api/v1/assistant-desktop/push', 'get'],
  ['/api/v1/assistant-desktop/push/{message_key}/dismiss', 'post'],
  ['/api/v1/desktop-chat/bootstrap', 'get'],
  ['/api/v1/desktop-chat/conversations', 'get'],
  ['/api/v1/desktop-chat/conversations', 'post'],
  ['/api/v1/desktop-chat/conversations/{conversation_id}', 'delete'],
  ['/api/v1/desktop-chat/conversations/{conversation_id}/messages', 'get'],
  ['/api/v1/desktop-chat/conversations/{conversation_id}/messages', 'post'],
  ['/api/v1/desktop-chat/messages/{message_id}/research.pdf', 'get'],
  ['/api/v1/desktop-chat/shoutbox/bootstrap', 'get'],
  ['/api/v1/desktop-chat/shoutbox/messages', 'get'],
  ['/api/v1/desktop-chat/shoutbox/messages', 'post'],
  ['/api/v1/desktop-chat/shoutbox/profile', 'post'],
  ['/api/v1/chatbot/idp/start', 'get'],
  ['/api/v1/chatbot/idp/callback', 'get'],
  ['/api/v1/chatbot/webhook', 'post'],
];

describe('OpenAPI document of the desktop and chat-bot routes', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => context.close());

  const document = async (headers: Record<string, string>) =>
    (await context.app.inject({ method: 'GET', url: '/openapi.json', headers })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            summary?: string;
            parameters?: { in: string; name: string }[];
            responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
          }
        >
      >;
    };

  it('lists every route of the spec with a summary, path parameters named as the spec names them', async () => {
    const customer = await signUp(context, 'dee');
    for (const headers of [{}, bearer(customer.systemToken)]) {
      const { paths } = await document(headers);
      for (const [path, method] of ROUTES) {
        const operation = paths[path]?.[method];
        expect(operation?.summary, `${method} ${path}`).toBeTruthy();
        for (const [, name] of path.matchAll(/\{(\w+)\}/g))
          expect(
            operation?.parameters?.some((parameter) => parameter.in === 'path' && parameter.name === name),
            `${path}: ${name}`,
          ).toBe(true);
      }
    }
  });

  it('declares the research PDF as application/pdf and names coder and research in the summaries', async () => {
    const { paths } = await document({});
    const pdf = paths['/api/v1/desktop-chat/messages/{message_id}/research.pdf']!.get!;
    expect(Object.keys(pdf.responses?.['200']?.content ?? {})).toEqual(['application/pdf']);
    expect(pdf.responses?.['200']?.content?.['application/pdf']?.schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(paths['/api/v1/desktop/bootstrap']!.get!.summary).toMatch(/coder \{projects, slots\}/);
    expect(paths['/api/v1/desktop-chat/conversations/{conversation_id}/messages']!.get!.summary).toMatch(/research/);
  });
});
