/**
 * Turn starts under an `Idempotency-Key`: the first result is recorded and returned for every repeat of the same
 * request; the same key with a different request is a 422 and starts nothing.
 */
import { requestHash } from '../billing/idempotency.js';
import { validationError, type AppError } from '../kernel/errors.js';
import type { ThreadRepository } from './thread-repository.js';
import type { TurnRequest } from './turn-input.js';

export class TurnIdempotency<Started> {
  /** Starts still running, so a repeat that arrives before the first is recorded waits for it instead of starting again. */
  private readonly inFlight = new Map<string, { hash: string; result: Promise<Started> }>();

  constructor(private readonly threads: Pick<ThreadRepository, 'findTurnRequest' | 'recordTurnRequest'>) {}

  /** Runs `start` once for the project's key and request; repeats get its first result. */
  async run(projectId: string, idempotencyKey: string, request: TurnRequest, start: () => Promise<Started>): Promise<Started> {
    const hash = requestHash('project.turn', request);
    const flightKey = `${projectId}\u0000${idempotencyKey}`;
    const inFlight = this.inFlight.get(flightKey);
    if (inFlight) {
      if (inFlight.hash !== hash) throw idempotencyMismatch();
      return inFlight.result;
    }
    const result = (async () => {
      const recorded = await this.threads.findTurnRequest(projectId, idempotencyKey);
      if (recorded) {
        if (recorded.requestHash !== hash) throw idempotencyMismatch();
        return recorded.response as Started;
      }
      const started = await start();
      await this.threads.recordTurnRequest(projectId, idempotencyKey, hash, started);
      return started;
    })().finally(() => this.inFlight.delete(flightKey));
    this.inFlight.set(flightKey, { hash, result });
    return result;
  }
}

function idempotencyMismatch(): AppError {
  const msg = 'Idempotency-Key was already used with a different request body';
  return validationError([{ loc: ['header', 'idempotency-key'], msg, type: 'idempotency_mismatch' }], msg);
}
