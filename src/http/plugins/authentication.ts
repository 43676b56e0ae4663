/**
 * Authentication, on `onRequest` before any body is read: the route's `auth` and `surface` (route-config.ts)
 * decide what is accepted — a bearer key, a dashboard session cookie on account-surface and managed-project routes,
 * an operator console cookie on operator routes — and the caller becomes `request.principal`. A customer's sandbox
 * reaches only its model provider (`/v1/*`), with that customer's credentials.
 */
import type { FastifyRequest } from 'fastify';
import { bearerFrom, unauthenticated } from '../../accounts/identity.js';
import { OPERATOR_COOKIE } from '../../accounts/operator-sessions.js';
import { surfaceAllowed, type CustomerPrincipal, type Principal, type Surface } from '../../accounts/principal.js';
import { safeEqual } from '../../accounts/secrets.js';
import { cookieValue, CSRF_HEADER, SESSION_COOKIE } from '../../accounts/sessions.js';
import { TURN_METADATA_HEADER } from '../../accounts/turn-principals.js';
import { sandboxCustomerOf } from '../../agent/sandbox-sockets.js';
import { AppError } from '../../kernel/errors.js';
import type { Services } from '../../services.js';
import { forwardedClientIp } from '../affinity.js';
import type { App } from '../types.js';

/** Methods that change nothing: a cookie-authenticated request needs no CSRF token for these. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a dashboard session cookie stands in for a key: account-surface routes and the managed-project routes. */
function sessionSurface(surface: string, routeUrl: string): boolean {
  return surface === 'account' || (surface === 'projects' && (routeUrl === '/api/v1/projects' || routeUrl.startsWith('/api/v1/projects/')));
}

/** Cookie-authenticated state changes must carry the CSRF token bound to the cookie. */
function checkCsrf(method: string, sent: string | string[] | undefined, expected: string): void {
  if (SAFE_METHODS.has(method)) return;
  if (typeof sent !== 'string' || !safeEqual(sent, expected)) {
    throw new AppError('FORBIDDEN', `Missing or invalid CSRF token: send the ${CSRF_HEADER} header with the token from sign-in`);
  }
}

interface RouteAuth {
  auth: 'api' | 'operator';
  surface: Surface;
  routeUrl: string;
}

export function registerAuthentication(app: App, services: Services): void {
  app.addHook('onRequest', async (request, _reply) => {
    // Fastify builds routeOptions anew on each read.
    const { config: routeConfig, url: routeUrl } = request.routeOptions;
    const auth = routeConfig?.auth ?? 'api';
    // A customer's sandbox reaches this server through its own Unix socket, for its model provider only.
    const sandboxCustomer = sandboxCustomerOf(request.raw.socket);
    if (sandboxCustomer !== undefined && !request.url.startsWith('/v1/')) throw new AppError('NOT_FOUND', 'Route not found');
    if (auth === 'public' || routeUrl === undefined) return;
    const route: RouteAuth = { auth, surface: routeConfig.surface ?? 'account', routeUrl };
    const token = bearerFrom(request.headers, routeConfig.allowApiKeyHeader === true);
    const cookiePrincipal = token === undefined ? await cookiePrincipalOf(services, request, route) : null;
    if (cookiePrincipal !== null) {
      request.principal = cookiePrincipal;
      return;
    }
    await acceptBearer(services, request, { token, route, sandboxCustomer });
  });
}

/**
 * A dashboard session (cookie) is accepted only on account-surface api routes and the managed-project routes
 * (`/api/v1/projects/*`, so the dashboard's live agent view and its EventSource work); an operator console session
 * only on operator routes. Both only without a bearer; null when the request carries no such cookie.
 */
async function cookiePrincipalOf(services: Services, request: FastifyRequest, route: RouteAuth): Promise<Principal | null> {
  const { sessions, operatorSessions } = services.accounts;
  if (route.auth === 'api' && sessionSurface(route.surface, route.routeUrl)) {
    const sessionToken = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (sessionToken !== undefined) {
      const session = await sessions.resolve(sessionToken);
      if (session === null) throw unauthenticated();
      checkCsrf(request.method, request.headers[CSRF_HEADER], sessions.csrfFor(sessionToken));
      // A session opened from an SSO link reaches only the surfaces of the key that minted the link.
      if (session.session.derived && !surfaceAllowed(session.policy, route.surface)) {
        throw new AppError('SURFACE_NOT_ALLOWED', `This session is not allowed to use the ${route.surface} surface`);
      }
      return session;
    }
  }
  if (route.auth === 'operator') {
    const operatorToken = cookieValue(request.headers.cookie, OPERATOR_COOKIE);
    if (operatorToken !== undefined) {
      const operator = await operatorSessions.resolve(operatorToken);
      if (operator === null) throw unauthenticated();
      checkCsrf(request.method, request.headers[CSRF_HEADER], operatorSessions.csrfFor(operatorToken));
      return operator;
    }
  }
  return null;
}

/** The bearer (or its absence) resolved to a principal allowed on the route's surface. */
async function acceptBearer(
  services: Services,
  request: FastifyRequest,
  bearer: { token: string | undefined; route: RouteAuth; sandboxCustomer: number | undefined },
): Promise<void> {
  const { route, sandboxCustomer } = bearer;
  const principal = await services.identity.resolve(bearer.token);
  if (sandboxCustomer !== undefined && (principal.kind !== 'customer' || principal.customerId !== sandboxCustomer)) {
    throw new AppError('FORBIDDEN', 'This credential does not belong to the account whose agent sandbox sent it');
  }
  if (route.auth === 'operator' && principal.kind !== 'operator') throw new AppError('NOT_FOUND', 'Route not found');
  if (principal.kind === 'customer' && !surfaceAllowed(principal.policy, route.surface)) {
    throw new AppError('SURFACE_NOT_ALLOWED', `This key is not allowed to use the ${route.surface} surface`);
  }
  // An app-server's runtime credential acts as the key that started the turn its request names.
  const runtime = principal.kind === 'customer' && principal.policy.agentRuntime === true;
  request.principal = runtime
    ? services.turnPrincipals.resolve(principal as CustomerPrincipal, request.headers[TURN_METADATA_HEADER])
    : principal;
  if (principal.kind === 'customer' && !runtime && sandboxCustomer === undefined) {
    // A request forwarded by another node (several nodes) is recorded with the client's address, not the node's.
    const ip = (services.scale && forwardedClientIp(request, services.scale)) || request.ip;
    void services.accounts.alerts
      .networkUse(principal.customerId, principal.keyId, ip)
      .catch((error: unknown) => request.log.warn({ err: error }, 'recording the key network failed'));
  }
}
