/** The dashboard's cookies: the HttpOnly session cookie and the readable CSRF cookie (double-submit copy). */
import type { FastifyReply } from 'fastify';
import { CSRF_COOKIE, SESSION_COOKIE, type OpenedSession } from '../../../../../accounts/sessions.js';

function attributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function setSessionCookies(reply: FastifyReply, session: OpenedSession, nowMs: number, publicBaseUrl: string): void {
  const secure = publicBaseUrl.startsWith('https://');
  const maxAge = Math.max(1, Math.floor((session.expiresAt - nowMs) / 1000));
  reply.header('set-cookie', [
    `${SESSION_COOKIE}=${session.token}; HttpOnly; ${attributes(secure, maxAge)}`,
    `${CSRF_COOKIE}=${session.csrfToken}; ${attributes(secure, maxAge)}`,
  ]);
  reply.header('cache-control', 'no-store');
}

export function clearSessionCookies(reply: FastifyReply, publicBaseUrl: string): void {
  const secure = publicBaseUrl.startsWith('https://');
  reply.header('set-cookie', [`${SESSION_COOKIE}=; HttpOnly; ${attributes(secure, 0)}`, `${CSRF_COOKIE}=; ${attributes(secure, 0)}`]);
}

/** The JSON answer to a completed sign-in (the session id itself is only in the cookie). */
export function sessionView(session: OpenedSession, customerId: number) {
  return {
    two_factor_required: false,
    customer_id: customerId,
    csrf_token: session.csrfToken,
    csrf_header: 'x-csrf-token',
    expires_at: new Date(session.expiresAt).toISOString(),
  };
}
