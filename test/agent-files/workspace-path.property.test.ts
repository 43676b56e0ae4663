import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInside, parseWorkspacePath } from '../../src/agent/files/workspace-path.js';
import { AppError } from '../../src/kernel/errors.js';

const ROOT = '/srv/data/workspaces/1/prj_example';

/** Pieces attackers combine; any string built from them must be refused or stay below the root. */
const piece = fc.constantFrom(
  '..',
  '.',
  '/',
  '\\',
  '%2e',
  '%2f',
  '%25',
  '%00',
  '\u0000',
  'C:',
  'c:',
  '~',
  'a',
  'b.txt',
  '.git',
  '...',
  ' ',
  '\n',
  '\u202e',
  '．．',
  '//',
  'é',
);

function outcome(input: string): { segments: string[] } | { error: AppError } {
  try {
    return { segments: parseWorkspacePath(input) };
  } catch (error) {
    return { error: error as AppError };
  }
}

describe('parseWorkspacePath (property)', () => {
  it('either refuses with a 400 or yields segments that resolve inside the root', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
          fc.string({ maxLength: 64 }),
          fc.string({ unit: 'grapheme', maxLength: 32 }),
        ),
        (input) => {
          const result = outcome(input);
          if ('error' in result) {
            expect(result.error).toBeInstanceOf(AppError);
            expect(result.error.status).toBe(400);
            return;
          }
          for (const segment of result.segments) {
            expect(segment).not.toBe('');
            expect(segment).not.toBe('.');
            expect(segment).not.toBe('..');
            // eslint-disable-next-line no-control-regex -- control characters must not survive
            expect(segment).not.toMatch(/[/\\\u0000-\u001f%]/);
          }
          const resolved = path.resolve(ROOT, ...result.segments);
          expect(isInside(ROOT, resolved)).toBe(true);
          expect(path.relative(ROOT, resolved).split(path.sep).includes('..')).toBe(false);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('accepts every plain relative path and returns its segments unchanged', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_. -]{0,20}$/).filter((segment) => segment !== '.' && segment !== '..');
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 8 }), (segments) => {
        expect(parseWorkspacePath(segments.join('/'))).toEqual(segments);
      }),
    );
  });

  it('tells the root apart from a sibling with the same prefix', () => {
    expect(isInside(ROOT, ROOT)).toBe(true);
    expect(isInside(ROOT, `${ROOT}/a`)).toBe(true);
    expect(isInside(ROOT, `${ROOT}-other/a`)).toBe(false);
    expect(isInside(ROOT, '/srv/data')).toBe(false);
  });
});
