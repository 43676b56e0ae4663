/**
 * Builds the Fastify application from the services; `main.ts` alone listens. Cross-cutting behaviour lives
 * here: request ids, JSON parsing, authentication (onRequest, before any body is read), error rendering in
 * the caller's protocol, 404s and the OpenAPI document.
 */
import type { AddressInfo } from 'node:net';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { bearerFrom, unauthenticated } from '../accounts/identity.js';
import { cookieValue, CSRF_HEADER, SESSION_COOKIE } from '../accounts/sessions.js';
import { OPERATOR_COOKIE } from '../accounts/operator-sessions.js';
import { safeEqual } from '../accounts/secrets.js';
import { surfaceAllowed, type CustomerPrincipal, type Principal } from '../accounts/principal.js';
import { scrubTurnCredential, TURN_METADATA_HEADER } from '../accounts/turn-principals.js';
import { AppError, validationError } from '../kernel/errors.js';
import { randomBase62 } from '../kernel/ids.js';
import { SERVICE_VERSION } from '../kernel/version.js';
import type { Services } from '../services.js';
import { forwardedClientIp, registerAffinity } from './affinity.js';
import { callerCheck, credentialCheck } from './caller.js';
import { DrainState } from './drain.js';
import { sendError, toAppError } from './error-handler.js';
import { lazyChildLogger } from './lazy-logger.js';
import './route-config.js';
import {
  bodySuspicions,
  coerceParameters,
  jsonTooDeep,
  MAX_JSON_DEPTH,
  needsCoercion,
  unusableBodyIssues,
  unusableValueIssues,
  type BodySuspicions,
} from './validation.js';
import { registerRoutes } from './routes/index.js';
import { sandboxCustomerOf } from '../agent/sandbox-sockets.js';
import type { App } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set by the JSON parser: what the raw text could hold that no part of the service can use (null: nothing). */
    bodySuspicions: BodySuspicions | null;
  }
  interface FastifyInstance {
    /** Set when the node starts draining (readiness answers 503). */
    drain: DrainState;
  }
}

/** Methods that change nothing: a cookie-authenticated request needs no CSRF token for these. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a dashboard session cookie stands in for a key: account-surface routes and the managed-project routes. */
function sessionSurface(surface: string, routeUrl: string): boolean {
  return surface === 'account' || (surface === 'projects' && (routeUrl === '/api/v1/projects' || routeUrl.startsWith('/api/v1/projects/')));
}

/** `server.trustProxy` as Fastify takes it: off, the proxies' addresses, or a hop count (the nearest n hops). */
function trustProxyOption(setting: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}

/** Cookie-authenticated state changes must carry the CSRF token bound to the cookie. */
function checkCsrf(method: string, sent: string | string[] | undefined, expected: string): void {
  if (SAFE_METHODS.has(method)) return;
  if (typeof sent !== 'string' || !safeEqual(sent, expected)) {
    throw new AppError('FORBIDDEN', `Missing or invalid CSRF token: send the ${CSRF_HEADER} header with the token from sign-in`);
  }
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:\-]{1,128}$/;

function loopbackFor(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address;
}

export function requestIdFor(inbound: string | string[] | undefined): string {
  return typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound) ? inbound : `req_${randomBase62(20)}`;
}

export type { App };
/** Kept for callers that send an error themselves; the handlers live in error-handler.ts. */
export { sendError };

export async function buildApp(services: Services): Promise<App> {
  const { config } = services;
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    genReqId: (request) => requestIdFor(request.headers['x-request-id']),
    bodyLimit: config.server.bodyLimitBytes,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    childLoggerFactory: lazyChildLogger,
    // The client's address (request.ip) behind the configured proxies; the socket's own address without any.
    trustProxy: trustProxyOption(config.server.trustProxy),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // No type coercion: a body's string is never a number nor its number a string. Query and path values (always
    // text) are converted by `coerceParameters` before validation, decimal notation only.
    ajv: { customOptions: { coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strictNumbers: true } },
    // Errors the router raises before any hook runs (a malformed percent-encoding, an over-long parameter) get
    // the request id and the caller's error shape like every other error.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      sendError(request, reply, toAppError(error));
    },
  }).withTypeProvider<TypeBoxTypeProvider>() as App;

  app.decorate('drain', new DrainState());
  app.decorateRequest('principal', null);
  app.decorateRequest('bodySuspicions', null);

  // JSON bodies: an empty body is "no body" (so optional bodies work); malformed JSON is a 422, and so is JSON
  // nested deeper than MAX_JSON_DEPTH (every later walk of the body — validation, token estimation, Idempotency-Key
  // canonicalization — may then recurse safely).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonTooDeep(text, MAX_JSON_DEPTH)) {
      return done(
        validationError([{ loc: ['body'], msg: `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'json_too_deep' }]),
        undefined,
      );
    }
    // Only a body whose text could hold a NUL, a lone surrogate or an inexact number is walked after validation,
    // and only for what its text could hold.
    request.bodySuspicions = bodySuspicions(text);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(validationError([{ loc: ['body'], msg: `Invalid JSON: ${(error as Error).message}`, type: 'json_invalid' }]), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.raw.setHeader('x-request-id', request.id);
    // Fastify builds routeOptions anew on each read.
    const { config: routeConfig, url: routeUrl } = request.routeOptions;
    const auth = routeConfig?.auth ?? 'api';
    // A customer's sandbox reaches this server through its own Unix socket, for its model provider only.
    const sandboxCustomer = sandboxCustomerOf(request.raw.socket);
    if (sandboxCustomer !== undefined && !request.url.startsWith('/v1/')) throw new AppError('NOT_FOUND', 'Route not found');
    if (auth === 'public' || routeUrl === undefined) return;
    const token = bearerFrom(request.headers, routeConfig.allowApiKeyHeader === true);
    // A dashboard session (cookie) is accepted only on account-surface api routes and the managed-project routes
    // (`/api/v1/projects/*`, so the dashboard's live agent view and its EventSource work), only without a bearer.
    if (token === undefined && auth === 'api' && sessionSurface(routeConfig.surface ?? 'account', routeUrl)) {
      const sessionToken = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (sessionToken !== undefined) {
        const session = await services.accounts.sessions.resolve(sessionToken);
        if (session === null) throw unauthenticated();
        checkCsrf(request.method, request.headers[CSRF_HEADER], services.accounts.sessions.csrfFor(sessionToken));
        // A session opened from an SSO link reaches only the surfaces of the key that minted the link.
        const surface = routeConfig.surface ?? 'account';
        if (session.session.derived && !surfaceAllowed(session.policy, surface)) {
          throw new AppError('SURFACE_NOT_ALLOWED', `This session is not allowed to use the ${surface} surface`);
        }
        request.principal = session;
        return;
      }
    }
    // An operator console session (cookie) is accepted only on operator routes, only without a bearer.
    if (token === undefined && auth === 'operator') {
      const operatorToken = cookieValue(request.headers.cookie, OPERATOR_COOKIE);
      if (operatorToken !== undefined) {
        const operator = await services.accounts.operatorSessions.resolve(operatorToken);
        if (operator === null) throw unauthenticated();
        checkCsrf(request.method, request.headers[CSRF_HEADER], services.accounts.operatorSessions.csrfFor(operatorToken));
        request.principal = operator;
        return;
      }
    }
    const principal = await services.identity.resolve(token);
    if (sandboxCustomer !== undefined && (principal.kind !== 'customer' || principal.customerId !== sandboxCustomer)) {
      throw new AppError('FORBIDDEN', 'This credential does not belong to the account whose agent sandbox sent it');
    }
    if (auth === 'operator' && principal.kind !== 'operator') throw new AppError('NOT_FOUND', 'Route not found');
    if (principal.kind === 'customer') {
      const surface = routeConfig.surface ?? 'account';
      if (!surfaceAllowed(principal.policy, surface)) {
        throw new AppError('SURFACE_NOT_ALLOWED', `This key is not allowed to use the ${surface} surface`);
      }
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
  });

  // The sandboxes' model sockets feed this server like its own listener (the server needs not listen for them).
  services.agent.serveSandboxConnections((socket) => app.server.emit('connection', socket));

  // Several nodes: requests needing a customer's app-server go to the node holding its lease (after authentication).
  if (services.scale) registerAffinity(app, services.scale);

  // The app-servers call this service's own /v1 as their model provider; once listening, its real loopback address
  // is the one to use (wired here, once, for every listener: `main.ts` and the tests' `listen()` alike).
  app.addHook('onListen', async () => {
    const address = app.server.address() as AddressInfo | null;
    if (address && typeof address === 'object') {
      const host = address.family === 'IPv6' ? `[${loopbackFor(address.address)}]` : loopbackFor(address.address);
      services.agent.setServiceUrl(`http://${host}:${address.port}`);
    }
  });

  // Callback-style hooks: nothing here waits, and Fastify runs them without allocating promises.
  // Routes whose query or path schema names integers, numbers, booleans or lists read them from the text first
  // (decimal only, see `coerceParameters`); other routes pay nothing for it.
  // A route whose config names a `caller` rule gets its check as the first route-level preHandler: after validation
  // and the hooks above, before anything of its own (http/caller.ts); other routes pay nothing for it.
  // A `sensitive` action's credential check (the table in accounts/credential-rules.ts) runs right after it.
  const recentAuthMs = config.accounts.recentAuthMinutes * 60_000;
  app.addHook('onRoute', (routeOptions) => {
    const rule = routeOptions.config?.caller;
    const action = routeOptions.config?.sensitive;
    if (rule === undefined && action === undefined) return;
    const checks = [
      ...(rule === undefined ? [] : [callerCheck(rule)]),
      ...(action === undefined ? [] : [credentialCheck(action, () => services.clock.nowMs(), recentAuthMs)]),
    ];
    const existing = routeOptions.preHandler;
    routeOptions.preHandler = [...checks, ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing])];
  });

  app.addHook('onRoute', (routeOptions) => {
    const { querystring, params } = (routeOptions.schema ?? {}) as { querystring?: unknown; params?: unknown };
    const query = querystring && needsCoercion(querystring) ? querystring : undefined;
    const path = params && needsCoercion(params) ? params : undefined;
    if (!query && !path) return;
    const coerce = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      if (query) coerceParameters(query, request.query);
      if (path) coerceParameters(path, request.params);
      done();
    };
    const existing = routeOptions.preValidation;
    routeOptions.preValidation = existing === undefined ? coerce : [coerce, ...(Array.isArray(existing) ? existing : [existing])];
  });

  app.addHook('preHandler', (request, _reply, done) => {
    // An agent turn's model request: its turn credential is not passed on to any upstream.
    if (request.principal?.kind === 'customer' && request.principal.agentTurn !== undefined) scrubTurnCredential(request.body);
    const issues = [
      ...unusableValueIssues('query', request.query),
      ...unusableValueIssues('path', request.params),
      ...(request.bodySuspicions ? unusableBodyIssues(request.body, request.bodySuspicions) : []),
    ];
    done(issues.length > 0 ? validationError(issues) : undefined);
  });

  // One hook for the request metric (route template, never the raw URL) and the completion log line.
  const logRequests = services.logger.isLevelEnabled('info');
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    services.serviceMetrics.httpRequest(request.method, route ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    if (logRequests) {
      request.log.info({ method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
    }
    done();
  });

  // Routes outside a scope of their own (health, metrics, the documents, web pages, /v1 until its scope lands) and
  // framework errors; the `/api` scope sets its own handler (routes/index.ts).
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => sendError(request, reply, toAppError(error)));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const message = path.startsWith('/v1/v1/')
      ? 'Not found: the path contains /v1 twice. Use {base_url}/v1 as the SDK base URL (the SDK appends endpoint names) and do not add /v1 again.'
      : `Route ${request.method} ${path} not found`;
    return sendError(request, reply, new AppError('NOT_FOUND', message));
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Switchyard', version: SERVICE_VERSION, description: 'Codex app-server HTTP API, model-API gateway and wallet.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });

  await registerRoutes(app, services);
  return app;
}
