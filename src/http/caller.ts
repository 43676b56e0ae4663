/**
 * Who among authenticated callers may use a route: the `caller` rule of its config (route-config.ts), checked for
 * every route that names one before its handler runs (app.ts adds the check when the route is registered), so a
 * handler never repeats it and a new route cannot forget it. Handlers read the customer with `customerOf`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialKindOf, mayPerform, refusalFor, type SensitiveAction } from '../accounts/credential-rules.js';
import type { CustomerPrincipal, Principal } from '../accounts/principal.js';
import { AppError, notFound } from '../kernel/errors.js';
import type { CallerRule } from './route-config.js';

function customerOnly(refusal: () => AppError): (principal: Principal | null) => void {
  return (principal) => {
    if (principal?.kind !== 'customer') throw refusal();
  };
}

/** Each rule refuses with the status and message the routes have always answered. */
const CALLER_RULES: Record<CallerRule, (principal: Principal | null) => void> = {
  // Operators have no account of their own.
  customer: customerOnly(() => new AppError('FORBIDDEN', 'This route needs a customer key')),
  // An operator has no wallet: the wallet is "not found", as for a customer without one.
  'wallet-owner': customerOnly(() => notFound('Wallet')),
  'project-owner': customerOnly(() => new AppError('FORBIDDEN', 'Projects belong to customers; use a customer key')),
};

/** The preHandler app.ts gives every route whose config names a `caller` rule (after validation, like the handler). */
export function callerCheck(rule: CallerRule) {
  const check = CALLER_RULES[rule];
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    try {
      check(request.principal);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}

/**
 * The preHandler app.ts gives every route whose config names a `sensitive` action: the credential table decides
 * (accounts/credential-rules.ts). `recentMs` is how long a checked password keeps a dashboard session recent.
 */
export function credentialCheck(action: SensitiveAction, nowMs: () => number, recentMs: number) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
    const principal = request.principal;
    if (principal === null) return done(new AppError('UNAUTHENTICATED', 'Missing or invalid bearer token'));
    const kind = credentialKindOf(principal, nowMs(), recentMs);
    if (mayPerform(kind, action)) return done();
    const refusal = refusalFor(kind);
    done(
      new AppError('FORBIDDEN', refusal.message, {
        details: { credential: kind, action, ...(refusal.reauthenticate ? { reauthenticate: '/api/v1/auth/reauthenticate' } : {}) },
      }),
    );
  };
}

/** The calling customer of a route whose config names a `caller` rule (which already refused everyone else). */
export function customerOf(request: FastifyRequest): CustomerPrincipal {
  const principal = request.principal;
  // A route that reads the customer without a rule would answer operators with a 500: the rule is missing.
  if (request.routeOptions.config?.caller === undefined || principal?.kind !== 'customer') {
    throw new AppError(
      'INTERNAL',
      `Route ${request.routeOptions.url ?? request.url} reads the calling customer but declares no caller rule`,
    );
  }
  return principal;
}
