/** What the account's settings routes share: who may call them, and the alert every credential change raises. */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { SensitiveAction } from '../../../../../accounts/credential-rules.js';
import type { AccountServices } from '../../../../../accounts/index.js';

export const AccountPassword = Type.String({ minLength: 1, maxLength: 256, description: 'The account password.' });

export const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;
/** A sensitive action of the account (accounts/credential-rules.ts decides who may). */
export const sensitive = <A extends SensitiveAction>(action: A) => ({ ...customerAccount, sensitive: action }) as const;

/** Every change of a credential lands in the account's alerts (each occurrence its own alert). */
export function credentialChangeAlert(accounts: Pick<AccountServices, 'alerts'>) {
  return (customerId: number, cause: string, details: Record<string, unknown>, causeKey?: string) =>
    accounts.alerts.raise(customerId, { cause, causeKey: causeKey ?? `at:${Date.now()}:${randomUUID()}`, details });
}
