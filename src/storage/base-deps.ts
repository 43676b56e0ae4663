/** What every domain factory takes from the composition root: configuration, storage, logger and clock. */
import type { Logger } from 'pino';
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from './database.js';

export interface BaseDeps {
  config: AppConfig;
  storage: Storage;
  logger: Logger;
  clock: Clock;
}
