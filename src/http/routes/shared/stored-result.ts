/** Sends the stored answer of an idempotent operation, marking a replay (`idempotent-replayed: true`). */
import type { FastifyReply } from 'fastify';

export function sendStoredResult(reply: FastifyReply, result: { status: number; body: unknown; replayed: boolean }): FastifyReply {
  if (result.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(result.status).send(result.body);
}
