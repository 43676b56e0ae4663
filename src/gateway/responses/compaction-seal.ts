/**
 * The `encrypted_content` of a compaction item: the model's summary sealed with AES-256-GCM under a key derived
 * from the service secret. Clients treat it as opaque and send it back as an input item; only this service can
 * open it, and a tampered or foreign item opens to nothing.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const FORMAT_PREFIX = 'swc1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class CompactionSeal {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('gateway compaction summary').digest();
  }

  seal(summary: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(summary, 'utf8'), cipher.final()]);
    return FORMAT_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  }

  /** The summary inside a compaction item, or undefined when it was not sealed by this service. */
  open(encrypted: string): string | undefined {
    if (!encrypted.startsWith(FORMAT_PREFIX)) return undefined;
    const bytes = Buffer.from(encrypted.slice(FORMAT_PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
