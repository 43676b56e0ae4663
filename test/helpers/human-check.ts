/**
 * Solves the service's human check as the widget does: fetches a challenge from GET /api/v1/auth/human-check and
 * runs the proof of work (altcha-lib's solver, the same PBKDF2 key derivation) until the hidden counter is found.
 * Test contexts make the work small (test/helpers/context.ts); the check itself is the production one.
 */
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { expect } from 'vitest';

interface Injector {
  app: { inject(options: { method: 'GET'; url: string }): Promise<{ statusCode: number; body: string; json(): any }> };
}

export async function solveHumanCheckChallenge(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (solution === null) throw new Error('the human-check challenge could not be solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

/** A freshly solved challenge, as the `humanCheck` field of a request. */
export async function solvedHumanCheck(context: Injector): Promise<string> {
  const response = await context.app.inject({ method: 'GET', url: '/api/v1/auth/human-check' });
  expect(response.statusCode, response.body).toBe(200);
  return solveHumanCheckChallenge(response.json() as Challenge);
}

/** The same against a running service (tests that start the service as a process). */
export async function solvedHumanCheckAt(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/auth/human-check`);
  expect(response.status).toBe(200);
  return solveHumanCheckChallenge((await response.json()) as Challenge);
}
