/**
 * Legacy completions errors: before the stream, OpenAI's body (shared/openai-errors.ts); inside it, one `{error}`
 * chunk, then `[DONE]`.
 */
import type { AppError } from '../../../kernel/errors.js';
import type { Json } from '../shared/decode-helpers.js';

/** The error chunk written inside an already started legacy stream (5xx other than upstream ones say no more). */
export function completionStreamError(error: AppError): Json {
  return {
    error: {
      message: error.status >= 500 && !error.code.startsWith('UPSTREAM') ? 'Internal server error' : error.message,
      type: 'api_error',
      code: error.code.toLowerCase(),
    },
  };
}
