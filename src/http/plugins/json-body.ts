/**
 * JSON bodies: an empty body is "no body" (so optional bodies work); malformed JSON is a 422, and so is JSON nested
 * deeper than MAX_JSON_DEPTH (every later walk of the body — validation, token estimation, Idempotency-Key
 * canonicalization — may then recurse safely).
 */
import { validationError } from '../../kernel/errors.js';
import type { App } from '../types.js';
import { bodySuspicions, jsonTooDeep, MAX_JSON_DEPTH } from '../validation.js';

export function registerJsonBody(app: App): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonTooDeep(text, MAX_JSON_DEPTH)) {
      return done(
        validationError([{ loc: ['body'], msg: `JSON must not be nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'json_too_deep' }]),
        undefined,
      );
    }
    // Only a body whose text could hold a NUL, a lone surrogate or an inexact number is walked after validation,
    // and only for what its text could hold.
    request.bodySuspicions = bodySuspicions(text);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(validationError([{ loc: ['body'], msg: `Invalid JSON: ${(error as Error).message}`, type: 'json_invalid' }]), undefined);
    }
  });
}
