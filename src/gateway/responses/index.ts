/** Composition of the responses lifecycle (background runs, cancel, compaction, input tokens, replay). */
import type { ExecuteDeps } from '../execute.js';
import type { DriverDeps } from '../protocols/driver.js';
import { decodeResponsesRequest } from '../protocols/responses/decode.js';
import { ResponsesEncoder } from '../protocols/responses/stream.js';
import { runResponseInBackground } from '../protocols/responses/run.js';
import type { StoredObjectsService } from '../stored/stored-objects.js';
import { ResponsesLifecycle } from './lifecycle.js';
import type { BaseDeps } from '../../storage/base-deps.js';

/** What this domain takes from the composition root. */
export type ResponsesDeps = Omit<BaseDeps, 'storage'>;

export { ResponsesLifecycle } from './lifecycle.js';

export function createResponsesLifecycle(
  deps: ResponsesDeps,
  parts: { executeDeps: ExecuteDeps; driver: DriverDeps; stored: StoredObjectsService },
): ResponsesLifecycle {
  return new ResponsesLifecycle({
    routing: parts.executeDeps.routing,
    driver: parts.driver,
    stored: parts.stored,
    clock: deps.clock,
    logger: deps.logger,
    secret: deps.config.secret,
    decode: decodeResponsesRequest,
    run: (options) => runResponseInBackground({ driver: parts.driver, clock: deps.clock, ...options }),
    queuedResponse: (body, nowMs) => ({
      ...new ResponsesEncoder({ model: String(body.model), body, createdAtSeconds: Math.floor(nowMs / 1000) }).response(),
      status: 'queued',
    }),
  });
}
