/**
 * The signed envelope of project event relay messages on Redis. Redis is not a trust boundary: anything that can
 * reach it can publish on the channel, so every message carries an HMAC-SHA256 over its exact payload text, under
 * a key derived from the server secret that every node shares. A message is `v1.<mac>.<payload>`; the mac is
 * checked in constant time before the payload is even parsed. A message that fails is dropped by the receiver
 * and counted by reason (`RelayRejections`), with a warning at most once a minute per reason.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';

const VERSION = 'v1';
const MAC_LENGTH = 43; // base64url of 32 bytes, no padding
const WARN_INTERVAL_MS = 60_000;

export const RELAY_REJECT_REASONS = ['unsigned', 'bad_signature', 'malformed', 'stale', 'not_in_log'] as const;
export type RelayRejectReason = (typeof RELAY_REJECT_REASONS)[number];

export type OpenedEnvelope = { ok: true; payload: string } | { ok: false; reason: 'unsigned' | 'bad_signature' };

export class RelayEnvelope {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, 'switchyard-scale-out', 'event-relay', 32));
  }

  seal(payload: string): string {
    return `${VERSION}.${this.mac(payload)}.${payload}`;
  }

  /** The payload when the message is sealed under this deployment's key; why not otherwise. */
  open(text: string): OpenedEnvelope {
    const prefix = `${VERSION}.`;
    if (!text.startsWith(prefix) || text.charAt(prefix.length + MAC_LENGTH) !== '.') return { ok: false, reason: 'unsigned' };
    const given = Buffer.from(text.slice(prefix.length, prefix.length + MAC_LENGTH));
    const payload = text.slice(prefix.length + MAC_LENGTH + 1);
    const expected = Buffer.from(this.mac(payload));
    return given.length === expected.length && timingSafeEqual(given, expected)
      ? { ok: true, payload }
      : { ok: false, reason: 'bad_signature' };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload, 'utf8').digest('base64url');
  }
}

/** Relay messages dropped, by reason; each reason warns at most once a minute (with the count it kept quiet). */
export class RelayRejections {
  private readonly counts = Object.fromEntries(RELAY_REJECT_REASONS.map((reason) => [reason, 0])) as Record<RelayRejectReason, number>;
  private readonly lastWarnAt = new Map<RelayRejectReason, number>();
  private readonly quiet = new Map<RelayRejectReason, number>();

  constructor(
    private readonly logger: Logger,
    private readonly nowMs: () => number = Date.now,
  ) {}

  reject(reason: RelayRejectReason, detail: Record<string, unknown> = {}): void {
    this.counts[reason] += 1;
    const now = this.nowMs();
    const last = this.lastWarnAt.get(reason);
    if (last !== undefined && now - last < WARN_INTERVAL_MS) {
      this.quiet.set(reason, (this.quiet.get(reason) ?? 0) + 1);
      return;
    }
    this.lastWarnAt.set(reason, now);
    const suppressed = this.quiet.get(reason) ?? 0;
    this.quiet.delete(reason);
    this.logger.warn({ reason, suppressed, ...detail }, 'dropped a project event relay message that failed verification');
  }

  /** Messages dropped since the start, by reason. */
  totals(): Record<RelayRejectReason, number> {
    return { ...this.counts };
  }
}
