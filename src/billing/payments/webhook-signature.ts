/**
 * Verification of the card processor's webhook signature header `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: each
 * `v1` is HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret. The timestamp must be within the
 * tolerance of the server clock in either direction; signatures are compared in constant time; several `v1`
 * values are accepted (secret rotation), other schemes (`v0`) are ignored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureFailure =
  'missing_header' | 'malformed_header' | 'no_v1_signature' | 'timestamp_outside_tolerance' | 'signature_mismatch' | 'no_secret';

export class WebhookSignatureError extends Error {
  constructor(readonly reason: SignatureFailure) {
    super(`webhook signature rejected: ${reason}`);
    this.name = 'WebhookSignatureError';
  }
}

export function signPayload(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/** The header a sender would send (tests, and documentation of the format). */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string): string {
  return `t=${timestampSeconds},v1=${signPayload(secret, timestampSeconds, rawBody)}`;
}

/** Throws `WebhookSignatureError` unless the header carries a valid, fresh `v1` signature of `rawBody`. */
export function verifySignature(
  header: string | string[] | undefined,
  rawBody: string,
  secret: string,
  toleranceSeconds: number,
  nowMs: number,
): void {
  if (secret === '') throw new WebhookSignatureError('no_secret');
  if (header === undefined || header === '') throw new WebhookSignatureError('missing_header');
  if (Array.isArray(header)) throw new WebhookSignatureError('malformed_header');
  let timestamp: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) throw new WebhookSignatureError('malformed_header');
    const name = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (name === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) throw new WebhookSignatureError('malformed_header');
      timestamp = Number(value);
    } else if (name === 'v1') {
      v1.push(value);
    }
  }
  if (timestamp === undefined) throw new WebhookSignatureError('malformed_header');
  if (v1.length === 0) throw new WebhookSignatureError('no_v1_signature');
  if (Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) throw new WebhookSignatureError('timestamp_outside_tolerance');
  const expected = Buffer.from(signPayload(secret, timestamp, rawBody), 'hex');
  let matched = false;
  for (const candidate of v1) {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) continue;
    // Every candidate is compared (no early exit), each in constant time.
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  if (!matched) throw new WebhookSignatureError('signature_mismatch');
}
