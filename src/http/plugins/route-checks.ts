/**
 * Checks every route gets from its declaration, added when the route is registered so other routes pay nothing:
 * the caller rule and the sensitive-action credential check (route config), the text-to-value conversion of query
 * and path parameters (route schema), and after validation the refusal of values no part of the service can use.
 * Callback-style hooks: nothing here waits, and Fastify runs them without allocating promises.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { scrubTurnCredential } from '../../accounts/turn-principals.js';
import { validationError } from '../../kernel/errors.js';
import type { Services } from '../../services.js';
import { callerCheck, credentialCheck } from '../caller.js';
import type { App } from '../types.js';
import { coerceParameters, needsCoercion, unusableBodyIssues, unusableValueIssues } from '../validation.js';

/**
 * A route whose config names a `caller` rule gets its check as the first route-level preHandler: after validation
 * and the request hooks, before anything of its own (http/caller.ts). A `sensitive` action's credential check (the
 * table in accounts/credential-rules.ts) runs right after it.
 */
function registerCallerChecks(app: App, services: Services): void {
  const recentAuthMs = services.config.accounts.recentAuthMinutes * 60_000;
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
}

/** Routes whose query or path schema names integers, numbers, booleans or lists read them from the text first (decimal only). */
function registerParameterCoercion(app: App): void {
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
}

export function registerRouteChecks(app: App, services: Services): void {
  registerCallerChecks(app, services);
  registerParameterCoercion(app);
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
}
