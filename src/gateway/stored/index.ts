/** Stored chat completions and responses: the service the gateway's protocols save into and the lifecycle routes read. */
import { StoredObjectsService } from './stored-objects.js';
import { StoredObjectRepository } from './stored-repository.js';
import { ResponseRepository } from './response-repository.js';
import type { BaseDeps } from '../../storage/base-deps.js';

/** What this domain takes from the composition root. */
export type StoredObjectsDeps = BaseDeps;

export { StoredObjectsService, ownerScope } from './stored-objects.js';

export function createStoredObjects(deps: StoredObjectsDeps): StoredObjectsService {
  return new StoredObjectsService({
    objects: new StoredObjectRepository(deps.storage.db),
    responses: new ResponseRepository(deps.storage.db),
    clock: deps.clock,
    logger: deps.logger,
    retentionMs: deps.config.storedObjects.retentionMs,
  });
}
