/**
 * API key format: `sy<kind>_<32 random base62><6 base62 checksum>`. The checksum (CRC-32 of everything before it)
 * lets us reject keys of other sites, typos and truncations before touching the database. Keys are stored only
 * as an HMAC-SHA256 under the server secret, plus the visible prefix and last four characters.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62, toBase62 } from '../kernel/ids.js';
import type { ApiKeyKind } from '../storage/tables/chassis.js';
import { crc32 } from '../kernel/crc32.js';

const KIND_LETTER: Record<ApiKeyKind, string> = { wallet: 'w', username: 'n', user: 'u', managed: 'm' };
const KEY_PATTERN = /^sy([wnum])_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

export interface GeneratedKey {
  plaintext: string;
  prefix: string;
  lastFour: string;
}

export function generateKey(kind: ApiKeyKind): GeneratedKey {
  const body = `sy${KIND_LETTER[kind]}_${randomBase62(32)}`;
  const plaintext = body + toBase62(crc32(body), 6);
  return { plaintext, prefix: plaintext.slice(0, 8), lastFour: plaintext.slice(-4) };
}

/** True when the value has our shape and a valid checksum (no database read needed to reject it). */
export function isWellFormedKey(value: string): boolean {
  const match = KEY_PATTERN.exec(value);
  if (!match) return false;
  const body = value.slice(0, value.length - 6);
  return toBase62(crc32(body), 6) === match[3];
}

export function hashKey(secret: string, plaintext: string): string {
  return createHmac('sha256', secret).update(plaintext).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
