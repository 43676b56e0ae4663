/**
 * Semantic versions (semver 2.0.0): parsing and precedence. Prerelease identifiers compare field by field
 * (numeric fields numerically and below alphanumeric ones, alphanumeric fields in ASCII order, a shorter list
 * first when all shared fields are equal), and a prerelease sorts before its release. Build metadata is ignored.
 */
export interface SemanticVersion {
  major: number;
  minor: number;
  patch: number;
  prerelease: (string | number)[];
  build: string[];
}

const NUMBER = '0|[1-9]\\d*';
const PRERELEASE_FIELD = `(?:${NUMBER}|\\d*[A-Za-z-][0-9A-Za-z-]*)`;
const BUILD_FIELD = '[0-9A-Za-z-]+';

/** The accepted text form: an optional leading `v`, then a strict semver 2.0.0 version. */
export const SEMVER_PATTERN =
  `^v?(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})` +
  `(?:-(${PRERELEASE_FIELD}(?:\\.${PRERELEASE_FIELD})*))?` +
  `(?:\\+(${BUILD_FIELD}(?:\\.${BUILD_FIELD})*))?$`;

const SEMVER = new RegExp(SEMVER_PATTERN);

/** Parses a version; returns undefined when the text is not a semantic version. */
export function parseVersion(text: string): SemanticVersion | undefined {
  const match = SEMVER.exec(text.trim());
  if (!match) return undefined;
  const numbers = [match[1], match[2], match[3]].map(Number);
  if (!numbers.every(Number.isSafeInteger)) return undefined;
  return {
    major: numbers[0]!,
    minor: numbers[1]!,
    patch: numbers[2]!,
    prerelease: match[4] === undefined ? [] : match[4].split('.').map((field) => (/^\d+$/.test(field) ? Number(field) : field)),
    build: match[5] === undefined ? [] : match[5].split('.'),
  };
}

function compareField(left: string | number, right: string | number): number {
  if (typeof left === 'number' && typeof right === 'number') return Math.sign(left - right);
  if (typeof left === 'number') return -1;
  if (typeof right === 'number') return 1;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Negative when `left` precedes `right`, positive when it follows, 0 when they have the same precedence. */
export function compareVersions(left: SemanticVersion, right: SemanticVersion): number {
  const core = Math.sign(left.major - right.major) || Math.sign(left.minor - right.minor) || Math.sign(left.patch - right.patch);
  if (core !== 0) return core;
  if (left.prerelease.length === 0 || right.prerelease.length === 0) {
    return left.prerelease.length === right.prerelease.length ? 0 : left.prerelease.length === 0 ? 1 : -1;
  }
  const shared = Math.min(left.prerelease.length, right.prerelease.length);
  for (let index = 0; index < shared; index++) {
    const order = compareField(left.prerelease[index]!, right.prerelease[index]!);
    if (order !== 0) return order;
  }
  return Math.sign(left.prerelease.length - right.prerelease.length);
}
