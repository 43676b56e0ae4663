/** Small helpers for the chassis suites: sign up customers the way users do and compare error bodies. */
import { expect } from 'vitest';
import { randomBase62 } from '../../src/kernel/ids.js';
import { bearer, operatorHeaders, type TestContext } from '../helpers/context.js';
import { solvedHumanCheck } from '../helpers/human-check.js';

export interface SignedUp {
  customerId: number;
  email: string;
  username: string;
  password: string;
  systemToken: string;
  systemTokenId: number;
  usernameToken: string;
  usernameTokenId: number;
}

export function uniqueEmail(label = 'user'): string {
  return `${label}.${randomBase62(8).toLowerCase()}@example.test`;
}

/**
 * What lets this sign-up in: with open registration a solved human check; otherwise (invite, the default) an
 * invite the operator sends from the console, whose token the link carries.
 */
async function admission(context: TestContext, email: string): Promise<Record<string, string>> {
  if (context.config.accounts.registration === 'open') return { humanCheck: await solvedHumanCheck(context) };
  const invited = await context.app.inject({ method: 'POST', url: '/api/admin/invites', headers: operatorHeaders, payload: { email } });
  expect(invited.statusCode, invited.body).toBe(201);
  return { invite: /#invite=([A-Za-z0-9_-]+)/.exec(invited.json().link)![1]! };
}

export async function signUp(context: TestContext, label = 'user'): Promise<SignedUp> {
  const email = uniqueEmail(label);
  const password = `pw-${randomBase62(16)}`;
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/v1/customer/register',
    payload: { email, password, name: label, ...(await admission(context, email)) },
  });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json();
  return {
    customerId: body.customer.id,
    email,
    username: body.customer.username,
    password,
    systemToken: body.api_key,
    systemTokenId: body.api_key_id,
    usernameToken: body.username_token,
    usernameTokenId: body.username_token_id,
  };
}

/**
 * Verifies the account's email through the route the mailed link opens (the link's token is issued by the
 * service as at sign-up; test/promotions/free-credit.test.ts reads it from a real mail).
 */
export async function verifyEmail(context: TestContext, who: Pick<SignedUp, 'customerId'>): Promise<void> {
  const token = await context.services.accounts.emailVerification.send(who.customerId);
  const opened = await context.app.inject({ method: 'GET', url: `/api/v1/auth/verify-email?token=${token}` });
  expect(opened.statusCode).toBe(302);
  expect(opened.headers.location).toBe('/dashboard.html?email_verified=1');
}

export async function createUserKey(context: TestContext, owner: SignedUp, body: Record<string, unknown> = {}) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/v1/me/api-keys',
    headers: bearer(owner.systemToken),
    payload: body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number; key: string; [field: string]: unknown };
}

export async function issueManagedKey(context: TestContext, body: Record<string, unknown>) {
  const response = await context.app.inject({ method: 'POST', url: '/api/admin/keys', headers: operatorHeaders, payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number; key: string; role: string; customer_id: number | null };
}

/** The body with its request id taken out, as raw text, so two errors can be compared byte for byte. */
export function bodyWithoutRequestId(response: { body: string; headers: Record<string, unknown> }): string {
  const requestId = String(response.headers['x-request-id']);
  expect(response.body).toContain(requestId);
  return response.body.split(requestId).join('<request-id>');
}
