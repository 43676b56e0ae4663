/**
 * Project affinity with several nodes (`scaleOut.enabled`): a request that needs a customer's app-server is
 * served where the customer's lease is held. Here when this node holds it or takes it (nobody holds it); else
 * forwarded to the holder, answer and streams piped back. Project event streams and files are served by any
 * node (the event log is shared, the workspaces live on a shared volume) and are never forwarded.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../kernel/errors.js';
import { FORWARDED_HEADER, type ScaleOut } from '../scale/index.js';
import { traceHeaders } from '../telemetry/index.js';
import type { App } from './types.js';

/** Project routes that reach the customer's app-server (`/events` and `/files/…` are served by any node). */
const PROJECT_ROUTE =
  /^\/api\/v1\/projects\/:projectId(\/(open|state|thread|turns|turns\/:turnId\/interrupt|approvals|approvals\/:requestId\/resolve))?$/;

/** Direct-thread routes that reach the caller's app-server (`/api/events`, `/api/rpc/events` read the shared log). */
export const DIRECT_AFFINITY_ROUTES = new Set([
  '/api/models',
  '/api/threads',
  '/api/threads/:thread_id',
  '/api/threads/:thread_id/resume',
  '/api/turns',
  '/api/turns/:turn_id/interrupt',
  '/api/projects/open',
  '/api/core/releases/current',
  '/api/threads/:thread_id/approvals',
  '/api/threads/:thread_id/approvals/:request_id/resolve',
  '/api/rpc',
  // Deleting a coder project stops the customer's app-server (and every process it left) where it runs.
  '/api/v1/desktop/coder/projects/:project_name',
]);

export const SERVED_BY_HEADER = 'x-switchyard-served-by';
/** The header a client's own request id is echoed in (and carried in when a node forwards a request). */
export const CLIENT_REQUEST_ID_HEADER = 'x-client-request-id';

export function affinityOf(route: string): 'project' | 'direct' | null {
  if (PROJECT_ROUTE.test(route)) return 'project';
  return DIRECT_AFFINITY_ROUTES.has(route) ? 'direct' : null;
}

/** Registers the routing hook; it must come after the authentication hook (it reads the principal). */
export function registerAffinity(app: App, scale: ScaleOut): void {
  app.addHook('onListen', async () => {
    const address = app.server.address() as AddressInfo | null;
    if (address && typeof address === 'object') {
      const host =
        address.family === 'IPv6'
          ? `[${address.address === '::' ? '::1' : address.address}]`
          : address.address === '0.0.0.0'
            ? '127.0.0.1'
            : address.address;
      scale.setListenUrl(`http://${host}:${address.port}`);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    const kind = route === undefined ? null : affinityOf(route);
    if (kind === null || request.principal === null) return;
    const customerId = await customerOf(kind, request, scale);
    if (customerId === null) return;
    // Forwarded by another node (authentic hop header): served here or refused, never forwarded again.
    if (forwardedClientIp(request, scale) !== null) {
      await scale.leases.ensureHeld(customerId);
      return;
    }
    const location = await scale.leases.locate(customerId);
    if (location.local) return;
    return forward(request, reply, scale, location.holderUrl, location.holderNode);
  });
}

/** The client's address as the first node saw it, when the request carries an authentic hop header; else null. */
export function forwardedClientIp(request: FastifyRequest, scale: ScaleOut): string | null {
  const header = request.headers[FORWARDED_HEADER];
  if (header === undefined) return null;
  return scale.signer.verify(header, request.method, request.raw.url ?? '/', Date.now())?.clientIp ?? null;
}

async function customerOf(kind: 'project' | 'direct', request: FastifyRequest, scale: ScaleOut): Promise<number | null> {
  const principal = request.principal!;
  if (kind === 'project') {
    const projectId = (request.params as { projectId?: unknown }).projectId;
    if (typeof projectId !== 'string' || projectId.length > 100) return null;
    const owner = await scale.projectOwner(projectId);
    // Unknown or foreign projects are answered here (the route's 404).
    if (owner === null || (principal.kind === 'customer' && principal.customerId !== owner)) return null;
    return owner;
  }
  if (principal.kind === 'customer') return principal.customerId;
  const requested = Number((request.query as { customer_id?: unknown } | undefined)?.customer_id);
  return Number.isSafeInteger(requested) && requested > 0 ? requested : null;
}

async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  scale: ScaleOut,
  holderUrl: string,
  holderNode: string,
): Promise<FastifyReply> {
  const controller = new AbortController();
  // A client that leaves ends the forwarded request too (the holder sees its client go).
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  let answer;
  try {
    // The holder continues this node's trace and keeps the client's own request id.
    const extra: Record<string, string> = { ...traceHeaders() };
    if (request.clientRequestId !== null) extra[CLIENT_REQUEST_ID_HEADER] = request.clientRequestId;
    answer = await scale.forwarder.forward(holderUrl, request.raw, {
      requestId: request.id,
      clientIp: request.ip,
      nowMs: Date.now(),
      signal: controller.signal,
      headers: extra,
    });
  } catch (error) {
    throw new AppError('UPSTREAM_UNAVAILABLE', 'The node serving this project does not answer; retry shortly', {
      retryAfterSeconds: 1,
      cause: error,
    });
  }
  answer.body.once('error', () => reply.raw.destroy());
  return reply.code(answer.statusCode).headers(answer.headers).header(SERVED_BY_HEADER, holderNode).send(answer.body);
}
