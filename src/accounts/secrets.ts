/**
 * Secret handling for the account flows: random tokens, keyed hashes (HMAC-SHA256 under a per-purpose key
 * derived from the server secret) and authenticated encryption (AES-256-GCM) for values that must be read
 * back, such as TOTP secrets. Nothing here stores or logs a plaintext.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretPurpose =
  | 'session'
  | 'csrf'
  | 'operator-csrf'
  | 'challenge'
  | 'reset'
  | 'sso'
  | 'oidc-state'
  | 'human-check'
  | 'network'
  | 'totp'
  | 'sso-link'
  | 'email-undo'
  | 'email-verify'
  | 'address-prefix'
  | 'altcha'
  | 'oidc'
  | 'coder-database'
  | 'unsubscribe'
  | 'chatbot-code'
  | 'invite'
  | 'runtime-key';

export class SecretBox {
  private readonly keys = new Map<string, Buffer>();

  constructor(private readonly serverSecret: string) {}

  private keyFor(purpose: string): Buffer {
    let key = this.keys.get(purpose);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.serverSecret, 'switchyard-accounts', purpose, 32));
      this.keys.set(purpose, key);
    }
    return key;
  }

  /** A new random token of `bytes` bytes (default 32 = 256 bits), base64url. */
  static token(bytes = 32): string {
    return randomBytes(bytes).toString('base64url');
  }

  /** The keyed hash a token is stored and looked up by. */
  hash(purpose: SecretPurpose, value: string): string {
    return createHmac('sha256', this.keyFor(purpose)).update(value).digest('base64url');
  }

  /** Constant-time check of `value` against an expected keyed hash. */
  verify(purpose: SecretPurpose, value: string, expectedHash: string): boolean {
    const actual = Buffer.from(this.hash(purpose, value));
    const expected = Buffer.from(expectedHash);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  encrypt(purpose: SecretPurpose, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyFor(`enc:${purpose}`), iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
  }

  decrypt(purpose: SecretPurpose, sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !tag || !body) throw new Error('malformed sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.keyFor(`enc:${purpose}`), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}

/** Constant-time string comparison (the key format's). */
export { constantTimeEqual as safeEqual } from './key-format.js';
