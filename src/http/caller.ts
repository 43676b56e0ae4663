/** The calling customer of a route that serves customers only. */
import type { FastifyRequest } from 'fastify';
import type { CustomerPrincipal } from '../accounts/principal.js';
import { AppError, notFound } from '../kernel/errors.js';

/** The calling customer; operators have no account of their own. */
export function customerOf(request: FastifyRequest): CustomerPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'customer') throw new AppError('FORBIDDEN', 'This route needs a customer key');
  return principal;
}

/** The calling customer of a wallet route: an operator has no wallet, so it is "not found". */
export function walletOwnerOf(request: FastifyRequest): CustomerPrincipal {
  const principal = request.principal;
  if (principal?.kind !== 'customer') throw notFound('Wallet');
  return principal;
}
