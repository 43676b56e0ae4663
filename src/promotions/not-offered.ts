import { AppError } from '../kernel/errors.js';

/** A promotion switched off in the config answers as if it did not exist. */
export const notOffered = (what: string): AppError => new AppError('NOT_FOUND', `${what} is not offered`);
