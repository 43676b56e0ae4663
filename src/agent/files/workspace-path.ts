/**
 * The syntactic half of workspace confinement: a client path is a relative, slash-separated path that can be
 * checked without touching the disk. Everything that could mean "somewhere else" on any platform or after one
 * more decoding step is refused here; the realpath and descriptor checks in confined-fs.ts do the rest.
 */
import path from 'node:path';
import { AppError, validationError } from '../../kernel/errors.js';

export const PATH_LENGTH_MAX = 1024;
export const SEGMENT_BYTES_MAX = 255;
/** Linux PATH_MAX less the terminating NUL: a longer absolute path fails with ENAMETOOLONG. */
export const ABSOLUTE_PATH_BYTES_MAX = 4095;

function badPath(reason: string): AppError {
  return new AppError('BAD_REQUEST', `Invalid path: ${reason}`);
}

/** Where a path came from in the request, for the 422 `loc` (e.g. `['query', 'path']`). */
export type PathLoc = (string | number)[];

function tooLong(loc: PathLoc, reason: string): AppError {
  return validationError([{ loc, msg: `Invalid path: ${reason}`, type: 'string_too_long' }]);
}

/**
 * A path the file system could not take: a name (segment) over 255 bytes or a whole path over PATH_MAX once
 * resolved against `root` → 422 naming `loc`, so no ENAMETOOLONG ever reaches a caller as a 500.
 */
export function checkNameLengths(requested: string, loc: PathLoc, root?: string): void {
  for (const segment of requested.split('/')) {
    if (Buffer.byteLength(segment) > SEGMENT_BYTES_MAX) throw tooLong(loc, `a name is longer than ${SEGMENT_BYTES_MAX} bytes`);
  }
  const absolute = root === undefined ? requested : path.resolve(root, requested);
  if (Buffer.byteLength(absolute) > ABSOLUTE_PATH_BYTES_MAX) throw tooLong(loc, `longer than ${ABSOLUTE_PATH_BYTES_MAX} bytes`);
}

/**
 * Splits a client path into its segments ('' or '.' = the workspace root, `[]`). Throws 400 for absolute
 * paths, `..`, backslashes, drive letters, NUL and other control characters and '%' (left-over percent
 * encoding); 422 naming `loc` for overlong paths or names.
 */
export function parseWorkspacePath(input: string, loc: PathLoc = ['query', 'path']): string[] {
  if (input.length > PATH_LENGTH_MAX) throw tooLong(loc, `longer than ${PATH_LENGTH_MAX} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(input)) throw badPath('control characters are not allowed');
  if (input.includes('\\')) throw badPath('backslashes are not allowed; use /');
  // Paths arrive decoded; a '%' left over can only be another encoding layer (%2e, %252e, %u002e, %c0%ae).
  if (input.includes('%')) throw badPath("'%' is not allowed (send the path decoded)");
  if (input.startsWith('/')) throw badPath('must be relative to the workspace');
  if (/^[A-Za-z]:/.test(input)) throw badPath('drive letters are not allowed');
  const segments: string[] = [];
  for (const segment of input.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') throw badPath('".." is not allowed');
    if (Buffer.byteLength(segment) > SEGMENT_BYTES_MAX) throw tooLong(loc, `a name is longer than ${SEGMENT_BYTES_MAX} bytes`);
    segments.push(segment);
  }
  return segments;
}

/** True when `candidate` (absolute, resolved) is the root or below it. */
export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The relative client form of segments (the root is ''). */
export function joinSegments(segments: readonly string[]): string {
  return segments.join('/');
}

/**
 * A copy of a JSON answer with the server's absolute workspace paths made relative to `root`: `root` itself
 * becomes `.`, `root/a/b` becomes `a/b`, also inside longer strings (a command line, a message). Callers see
 * where things are in their workspace, never where the workspace lives on the server.
 */
export function relativeToWorkspace<T>(value: T, root: string): T {
  return workspaceRewriter(root)(value);
}

/** `relativeToWorkspace` for one root, compiled once (for callers that rewrite many values). */
export function workspaceRewriter(root: string): <T>(value: T) => T {
  const base = root.length > 1 && root.endsWith('/') ? root.slice(0, -1) : root;
  if (base === '' || base === '/') return (value) => value;
  const pattern = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|(?![\\w.~-]))`, 'g');
  const rewrite = (node: unknown): unknown => {
    if (typeof node === 'string')
      return node.includes(base) ? node.replace(pattern, (_match, slash: string) => (slash === '/' ? '' : '.')) : node;
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node === 'object' && node !== null)
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, rewrite(item)]));
    return node;
  };
  return <T>(value: T) => rewrite(value) as T;
}
