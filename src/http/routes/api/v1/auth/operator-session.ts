/**
 * Operator console sign-in: the static operator token or a managed operator key, entered once, becomes an
 * operator console session (`sy_operator`, HttpOnly, sent only to `/api/admin`; `sy_operator_csrf` readable by
 * the page). See accounts/operator-sessions.ts.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { OPERATOR_COOKIE, OPERATOR_CSRF_COOKIE, type OpenedOperatorSession } from '../../../../../accounts/operator-sessions.js';
import { unauthenticated } from '../../../../../accounts/identity.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { Clock } from '../../../../../kernel/clock.js';
import type { App } from '../../../../types.js';

const OperatorSessionBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 256, description: 'The static operator token or a managed operator key.' }) },
  { additionalProperties: false },
);

function cookieAttributes(path: string, secure: boolean, maxAgeSeconds: number): string {
  return `Path=${path}; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function setOperatorCookies(reply: FastifyReply, session: OpenedOperatorSession, nowMs: number, publicBaseUrl: string): void {
  const secure = publicBaseUrl.startsWith('https://');
  const maxAge = Math.max(1, Math.floor((session.expiresAt - nowMs) / 1000));
  reply.header('set-cookie', [
    `${OPERATOR_COOKIE}=${session.token}; HttpOnly; ${cookieAttributes('/api/admin', secure, maxAge)}`,
    `${OPERATOR_CSRF_COOKIE}=${session.csrfToken}; ${cookieAttributes('/', secure, maxAge)}`,
  ]);
  reply.header('cache-control', 'no-store');
}

export function clearOperatorCookies(reply: FastifyReply, publicBaseUrl: string): void {
  const secure = publicBaseUrl.startsWith('https://');
  reply.header('set-cookie', [
    `${OPERATOR_COOKIE}=; HttpOnly; ${cookieAttributes('/api/admin', secure, 0)}`,
    `${OPERATOR_CSRF_COOKIE}=; ${cookieAttributes('/', secure, 0)}`,
  ]);
}

export interface OperatorAuthRouteDeps {
  accounts: Pick<AccountServices, 'operatorSessions'>;
  config: AppConfig;
  clock: Clock;
}

export async function operatorAuthRoutes(app: App, deps: OperatorAuthRouteDeps): Promise<void> {
  const { accounts, config, clock } = deps;

  app.post(
    '/operator-session',
    {
      config: { auth: 'public', surface: 'account' },
      schema: {
        tags: ['auth'],
        summary: 'Operator console sign-in: the operator token or a managed operator key → an 8-hour operator session',
        description:
          'Answers 201 {operator: true, key_id, csrf_token, csrf_header, expires_at} and sets sy_operator (HttpOnly, Path=/api/admin, SameSite=Strict) ' +
          'and sy_operator_csrf. The session is a new managed operator key that expires with it; the cookie is accepted only on /api/admin routes, ' +
          'state changes need the x-csrf-token header. Anything but an operator credential → 401.',
        body: OperatorSessionBody,
      },
    },
    async (request, reply) => {
      const session = await accounts.operatorSessions.open(request.body.token);
      if (session === null) throw unauthenticated();
      setOperatorCookies(reply, session, clock.nowMs(), config.publicBaseUrl);
      return reply.code(201).send({
        operator: true,
        key_id: session.keyId,
        csrf_token: session.csrfToken,
        csrf_header: 'x-csrf-token',
        expires_at: new Date(session.expiresAt).toISOString(),
      });
    },
  );
}
