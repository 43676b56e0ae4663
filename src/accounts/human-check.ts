/**
 * The human check: an ALTCHA proof-of-work challenge (`altcha-lib`, self-hosted, no third-party service). The
 * server hands out a challenge signed with a key derived from the server secret (PBKDF2/SHA-256, a configured
 * cost per attempt and a secret counter the client must find by trying every one); the page's `altcha` widget
 * solves it and sends the payload back as `humanCheck`. A payload is accepted once (its nonce is recorded in
 * `human_checks`, whose unique index makes two concurrent uses fail), within 10 minutes of its issue by the
 * service clock. Failures are 422s naming the field.
 */
import { randomInt } from 'node:crypto';
import { createChallenge, verifySolution, type Challenge, type Solution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { SecretBox } from './secrets.js';

export const HUMAN_CHECK_TTL_MS = 10 * 60_000;
export const HUMAN_CHECK_ALGORITHM = 'PBKDF2/SHA-256';

export interface HumanCheckAnswer {
  /** The widget's payload: base64 of `{challenge, solution}`. */
  humanCheck?: string;
}

export interface HumanCheckWork {
  /** PBKDF2 iterations per attempt. */
  cost: number;
  /** The secret counter is drawn from [maxCounter / 4, maxCounter]: the expected attempts are about 5/8 of it. */
  maxCounter: number;
}

interface Payload {
  challenge: Challenge;
  solution: Solution;
}

function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Partial<Payload>;
    if (typeof value !== 'object' || value === null || typeof value.challenge !== 'object' || typeof value.solution !== 'object')
      return null;
    if (value.challenge === null || value.solution === null || typeof value.challenge.parameters !== 'object') return null;
    return value as Payload;
  } catch {
    return null;
  }
}

export class HumanCheckService {
  private readonly hmacSecret: string;

  constructor(
    private readonly storage: Storage,
    box: SecretBox,
    private readonly clock: Clock,
    private readonly work: HumanCheckWork,
  ) {
    this.hmacSecret = box.hash('altcha', 'challenge-signature');
  }

  /** A new signed challenge, as the widget fetches it. */
  async create(): Promise<Challenge> {
    const { cost, maxCounter } = this.work;
    return createChallenge({
      algorithm: HUMAN_CHECK_ALGORITHM,
      cost,
      counter: randomInt(Math.max(1, Math.floor(maxCounter / 4)), maxCounter + 1),
      deriveKey,
      hmacSignatureSecret: this.hmacSecret,
      // Issued by the service clock (signed with the rest): the lifetime is checked against the same clock.
      data: { issuedAt: this.clock.nowMs() },
    });
  }

  /** Checks (and uses up) a solved challenge; `loc` is where the field sits in the request (body or query). */
  async verify(input: HumanCheckAnswer, loc: 'body' | 'query' = 'body'): Promise<void> {
    const refuse = (msg: string, type = 'value_error') => validationError([{ loc: [loc, 'humanCheck'], msg, type }]);
    if (!input.humanCheck) throw refuse('A solved human check is required', 'missing');
    const payload = parsePayload(input.humanCheck);
    if (payload === null) throw refuse('The human check is not a challenge solution');
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: this.hmacSecret,
    }).catch(() => null);
    if (result === null || !result.verified) throw refuse('The human check was not solved');
    const now = this.clock.nowMs();
    const issuedAt = Number(payload.challenge.parameters.data?.issuedAt);
    if (!Number.isFinite(issuedAt) || issuedAt > now + 60_000 || now - issuedAt > HUMAN_CHECK_TTL_MS) {
      throw refuse('The human check expired; solve a new one');
    }
    await this.useOnce(payload.challenge.parameters.nonce, now, () => refuse('This human check was already used'));
  }

  private async useOnce(nonce: string, now: number, used: () => Error): Promise<void> {
    try {
      await this.storage.db
        .insertInto('human_checks')
        .values({ public_id: `altcha:${nonce}`, answer_hash: '', expires_at: now + HUMAN_CHECK_TTL_MS, used_at: now, created_at: now })
        .execute();
    } catch (error) {
      if (/UNIQUE|23505|duplicate/i.test(String((error as Error).message) + String((error as { code?: string }).code))) throw used();
      throw error;
    }
  }
}
