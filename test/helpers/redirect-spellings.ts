/**
 * Spellings of a redirect target that try to leave the site, for the server's and the sign-in page's tests of
 * the one redirect rule (src/kernel/return-to.ts): dot segments that normalise to `//host`, control characters
 * browsers strip, backslashes they read as slashes, and each of these percent-encoded, once or twice.
 */
export const FOREIGN_RETURN_TO: readonly string[] = [
  '/.//evil.example',
  '/x/../..//evil.example',
  '/x/..//evil.example',
  '/%2e%2e//evil.example',
  '/./%2e//evil.example',
  '/%09/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/%0a/evil.example',
  '/%00/evil.example',
  '\\evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\/evil.example',
  '/%5C/evil.example',
  '/%5c%5cevil.example',
  '/%2F/evil.example',
  '/%2f%2fevil.example',
  '/%252F%252Fevil.example',
  '/%255C%255Cevil.example',
  '//evil.example',
  '///evil.example',
  'https://evil.example/',
  'https:/evil.example',
  'javascript:alert(1)',
  'java\tscript:alert(1)',
  ' //evil.example',
  'evil.example',
];

/** Whether a Location (or a page URL) stays on `origin`. */
export function staysOn(origin: string, target: string): boolean {
  try {
    return new URL(target, origin).origin === origin;
  } catch {
    return false;
  }
}
