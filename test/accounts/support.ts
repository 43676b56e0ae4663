/** Helpers for the accounts suites: dashboard sign-in through the routes and cookie handling. */
import { expect } from 'vitest';
import { base32Decode, totpAt } from '../../src/accounts/totp.js';
import type { TestContext } from '../helpers/context.js';
import type { SignedUp } from '../chassis/support.js';

export interface Dashboard {
  cookie: string;
  csrf: string;
  sessionToken: string;
}

export function cookiesOf(response: { headers: Record<string, unknown> }): Record<string, string> {
  const raw = response.headers['set-cookie'];
  const list = Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
  const out: Record<string, string> = {};
  for (const line of list) {
    const [pair] = line.split(';');
    const index = pair!.indexOf('=');
    out[pair!.slice(0, index)] = pair!.slice(index + 1);
  }
  return out;
}

export async function webLogin(context: TestContext, who: Pick<SignedUp, 'email' | 'password'>, ip = '127.0.0.1'): Promise<Dashboard> {
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/v1/auth/web-login',
    payload: { email: who.email, password: who.password },
    remoteAddress: ip,
  });
  expect(response.statusCode, response.body).toBe(200);
  return dashboardFrom(response);
}

export function dashboardFrom(response: { headers: Record<string, unknown>; json(): any }): Dashboard {
  const cookies = cookiesOf(response);
  expect(cookies.sy_session).toBeTruthy();
  expect(response.json().csrf_token).toBe(cookies.sy_csrf);
  return { cookie: `sy_session=${cookies.sy_session}`, csrf: cookies.sy_csrf!, sessionToken: cookies.sy_session! };
}

/** Cookie plus CSRF header, as the dashboard sends a state change. */
export function withSession(dashboard: Dashboard): Record<string, string> {
  return { cookie: dashboard.cookie, 'x-csrf-token': dashboard.csrf };
}

export function codeAt(secret: string, timeMs: number): string {
  return totpAt(base32Decode(secret), timeMs);
}
