/**
 * Sign-up human check: a short arithmetic question in words. The answer is stored as a keyed hash, checked once
 * (a wrong answer also uses the challenge up) within a few minutes. Failures are 422s naming the field.
 */
import { randomInt } from 'node:crypto';
import { validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { SecretBox } from './secrets.js';

export const HUMAN_CHECK_TTL_MS = 10 * 60_000;
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

export interface HumanCheckAnswer {
  humanCheckId?: string;
  humanCheckAnswer?: string;
}

export class HumanCheckService {
  constructor(
    private readonly storage: Storage,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  async create(): Promise<{ id: string; question: string; expires_at: string }> {
    const a = randomInt(1, 13);
    const b = randomInt(1, 13);
    const publicId = `hc_${SecretBox.token(16)}`;
    const now = this.clock.nowMs();
    await this.storage.db
      .insertInto('human_checks')
      .values({
        public_id: publicId,
        answer_hash: this.box.hash('human-check', `${publicId}:${a + b}`),
        expires_at: now + HUMAN_CHECK_TTL_MS,
        created_at: now,
      })
      .execute();
    return {
      id: publicId,
      question: `What is ${WORDS[a]} plus ${WORDS[b]}? Answer with digits.`,
      expires_at: new Date(now + HUMAN_CHECK_TTL_MS).toISOString(),
    };
  }

  /** Checks (and uses up) a challenge; `loc` is where the fields sit in the request (body or query). */
  async verify(input: HumanCheckAnswer, loc: 'body' | 'query' = 'body'): Promise<void> {
    if (!input.humanCheckId) throw validationError([{ loc: [loc, 'humanCheckId'], msg: 'A human check is required', type: 'missing' }]);
    if (!input.humanCheckAnswer)
      throw validationError([{ loc: [loc, 'humanCheckAnswer'], msg: 'A human check answer is required', type: 'missing' }]);
    const now = this.clock.nowMs();
    // Used up atomically: of two concurrent uses only one updates the row.
    const row = await this.storage.db
      .updateTable('human_checks')
      .set({ used_at: now })
      .where('public_id', '=', input.humanCheckId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['answer_hash'])
      .executeTakeFirst();
    if (!row)
      throw validationError([{ loc: [loc, 'humanCheckId'], msg: 'Unknown, expired or already used human check', type: 'value_error' }]);
    const answer = input.humanCheckAnswer.trim();
    if (!this.box.verify('human-check', `${input.humanCheckId}:${answer}`, row.answer_hash)) {
      throw validationError([{ loc: [loc, 'humanCheckAnswer'], msg: 'Wrong answer to the human check', type: 'value_error' }]);
    }
  }
}
