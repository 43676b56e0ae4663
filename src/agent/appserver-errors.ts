/**
 * App-server failures as client errors, mapped here once for the project routes, the direct routes and the
 * passthrough. A client never reads the app-server's internal configuration text (config keys, the Codex home's
 * paths, sandbox internals): known refusals become a message of ours (an unknown permission profile is a 422 on
 * the field that named it), a refusal whose text is internal becomes a plain 400, and the original travels only
 * as the error's `cause`, which the HTTP layer logs with the request id. A dead or silent process is temporary.
 */
import { AppServerError, AppServerExitedError, AppServerTimeoutError } from '../appserver/errors.js';
import { AppError, notFound } from '../kernel/errors.js';

/** The thread is not there (or not any more): a 404 like any unknown id. */
const THREAD_MISSING = /thread not found|thread not loaded|no rollout found|not found for thread|invalid thread id|failed to load rollout/i;
/** A permission profile that neither the built-ins nor the customer's configuration define. */
const UNKNOWN_PROFILE = /unknown (?:built-in )?(?:permission )?profile\s*[`'"]?([^`'"\s]+)/i;
/** Text that speaks of the app-server's own set-up rather than of the request. */
const INTERNAL_TEXT =
  /configuration|config\.toml|\bconfig (?:key|file|value|error)|codex[_ -]?home|codex-homes|default_permissions|sandbox_workspace_write|model_provider|bwrap|bubblewrap|seccomp|landlock/i;

/** The message a client may read for an app-server refusal. */
export const INTERNAL_REFUSAL = 'The agent could not apply the requested settings';

/**
 * One app-server failure → the error a client sees. `loc` is where the request's fields live (`body` on the
 * routes, `params` in the passthrough). Anything that is not an app-server failure is returned unchanged.
 */
export function mapAppServerError(error: unknown, loc: 'body' | 'params' = 'body'): unknown {
  if (error instanceof AppServerError) {
    const message = error.message;
    if (THREAD_MISSING.test(message)) return notFound('Thread');
    const profile = UNKNOWN_PROFILE.exec(message)?.[1];
    if (profile !== undefined) {
      const issues = [
        { loc: [loc, 'permissions'], msg: `Unknown permission profile ${profile}; see GET /api/v1/permissions`, type: 'value_error' },
      ];
      return new AppError('VALIDATION_FAILED', 'Request validation failed', { issues, cause: error });
    }
    if (INTERNAL_TEXT.test(message)) return new AppError('BAD_REQUEST', INTERNAL_REFUSAL, { cause: error });
    return new AppError('BAD_REQUEST', `The agent refused the request: ${message}`, { cause: error });
  }
  if (error instanceof AppServerExitedError) {
    return new AppError('UPSTREAM_UNAVAILABLE', 'The agent runtime is restarting; retry shortly', { retryAfterSeconds: 1, cause: error });
  }
  if (error instanceof AppServerTimeoutError)
    return new AppError('UPSTREAM_TIMEOUT', 'The agent runtime did not answer in time', { cause: error });
  return error;
}

/** Whether the app-server's own text may reach a client unchanged (the passthrough forwards such refusals raw). */
export function isPublicRefusal(error: AppServerError): boolean {
  return (
    !UNKNOWN_PROFILE.test(error.message) && !INTERNAL_TEXT.test(error.message) && !INTERNAL_TEXT.test(JSON.stringify(error.data ?? null))
  );
}

/** Resolves like `work`, with app-server failures mapped by `mapAppServerError`. */
export async function agentCall<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw mapAppServerError(error);
  }
}
