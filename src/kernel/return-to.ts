/**
 * Where a sign-in may send the browser afterwards: one rule for the server (SSO links, identity-provider sign-in)
 * and the sign-in page (web/login), which imports this module. A target is accepted only when, percent-decoded
 * (repeatedly) and normalised as a browser would resolve it, it is a path of this site: exactly one leading `/`,
 * no backslash, no control character. Anything else becomes the dashboard. Pure: no Node or DOM API beyond URL.
 */
export const DEFAULT_RETURN_TO = '/dashboard.html';
const MAX_LENGTH = 512;
const SELF = 'http://self.invalid';

/** Control characters (C0, DEL, C1) and the backslash, which browsers read as a slash. */
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;

/** Percent-decodes until nothing changes (at most a few rounds); null when a round is malformed. */
function fullyDecoded(value: string): string | null {
  let current = value;
  for (let round = 0; round < 4; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return null;
    }
    if (next === current) return current;
    current = next;
  }
  return null;
}

/** Exactly one leading slash and nothing a browser could read as another host. */
function isOwnPath(value: string): boolean {
  return value.startsWith('/') && !value.startsWith('//') && !FORBIDDEN.test(value);
}

export function safeReturnTo(value: string | null | undefined): string {
  if (value === undefined || value === null || value === '' || value.length > MAX_LENGTH) return DEFAULT_RETURN_TO;
  const decoded = fullyDecoded(value);
  if (decoded === null || !isOwnPath(value) || !isOwnPath(decoded)) return DEFAULT_RETURN_TO;
  let url: URL;
  try {
    url = new URL(value, SELF);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (url.origin !== SELF) return DEFAULT_RETURN_TO;
  // Normalised (dot segments resolved): `/.//evil.com` and `/x/../..//evil.com` become `//evil.com` here.
  const normalised = `${url.pathname}${url.search}${url.hash}`;
  const normalisedDecoded = fullyDecoded(normalised);
  if (!isOwnPath(normalised) || normalisedDecoded === null || !isOwnPath(normalisedDecoded)) return DEFAULT_RETURN_TO;
  return normalised;
}
