import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';
import { signUp } from '../chassis/support.js';

describe('OpenAPI document of the account routes', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => context.close());

  const ROUTES: [string, string][] = [
    ['/api/v1/auth/web-login', 'post'],
    ['/api/v1/auth/web-login/2fa', 'post'],
    ['/api/v1/auth/logout', 'post'],
    ['/api/v1/auth/password-reset/request', 'post'],
    ['/api/v1/auth/password-reset/confirm', 'post'],
    ['/api/v1/auth/sso', 'get'],
    ['/api/v1/auth/idp/start', 'get'],
    ['/api/v1/auth/idp/callback', 'get'],
    ['/api/v1/auth/human-check', 'get'],
    ['/api/v1/me/2fa/setup', 'post'],
    ['/api/v1/me/2fa/enable', 'post'],
    ['/api/v1/me/2fa/disable', 'post'],
    ['/api/v1/me/edge-region', 'post'],
    ['/api/v1/me/email', 'post'],
    ['/api/v1/me/password', 'post'],
    ['/api/v1/me/profile-name', 'post'],
    ['/api/v1/me/profile-name/dismiss', 'post'],
    ['/api/v1/me/sso-link', 'post'],
    ['/api/v1/me/api-key-alerts', 'get'],
    ['/api/v1/me/api-key-alerts/{event_id}/acknowledge', 'post'],
    ['/api/v1/messages', 'get'],
    ['/api/v1/messages/{message_id}/read', 'post'],
    ['/api/v1/toolbox', 'get'],
    ['/api/v1/toolbox', 'post'],
    ['/api/v1/customer-engagement', 'get'],
    ['/api/v1/customer-engagement', 'put'],
  ];

  it('lists every account route with a summary; the admin message route only for operators', async () => {
    const customer = await signUp(context, 'cat');
    for (const headers of [{}, bearer(customer.systemToken)]) {
      const paths = (await context.app.inject({ method: 'GET', url: '/openapi.json', headers })).json().paths;
      for (const [path, method] of ROUTES) expect(paths[path]?.[method]?.summary, `${method} ${path}`).toBeTruthy();
      expect(paths['/api/admin/messages']).toBeUndefined();
    }
    const operator = (await context.app.inject({ method: 'GET', url: '/openapi.json', headers: operatorHeaders })).json().paths;
    expect(operator['/api/admin/messages']?.post).toBeTruthy();
  });
});
