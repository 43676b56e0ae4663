/**
 * Who a direct call acts for. A customer acts on its own app-server; an operator names the customer
 * (`customer_id`), or reaches a thread through its owner record.
 */
import type { Principal } from '../accounts/principal.js';
import { notFound, validationError } from '../kernel/errors.js';
import type { DirectThreadOwners } from './thread-owners.js';

export function customerFor(principal: Principal, customerId: number | undefined): number {
  if (principal.kind === 'customer') return principal.customerId;
  if (customerId === undefined) {
    throw validationError([{ loc: ['query', 'customer_id'], msg: 'Operators name the customer whose app-server to use', type: 'missing' }]);
  }
  return customerId;
}

/** The customer whose app-server holds the thread; another customer's thread is a 404. */
export async function threadCustomer(principal: Principal, threadId: string, owners: DirectThreadOwners): Promise<number> {
  const owner = await owners.ownerOf(threadId);
  if (principal.kind === 'operator') {
    if (!owner) throw notFound('Thread');
    return owner.customerId;
  }
  if (owner && owner.customerId !== principal.customerId) throw notFound('Thread');
  return principal.customerId;
}

/**
 * The customer of a thread this service recorded as direct (started, forked or resumed here); any other id —
 * unknown, another customer's, a managed project's — is a 404. For routes that read only the service's own
 * records of the thread (approvals), where nothing would ever be found for an unrecorded thread.
 */
export async function recordedThreadCustomer(principal: Principal, threadId: string, owners: DirectThreadOwners): Promise<number> {
  const owner = await owners.ownerOf(threadId);
  if (!owner || (principal.kind === 'customer' && owner.customerId !== principal.customerId)) throw notFound('Thread');
  return owner.customerId;
}
