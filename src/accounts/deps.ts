/** The shared deps plus the identity parts the composition root builds first (keys, customers, bearer → principal). */
import type { BaseDeps } from '../storage/base-deps.js';
import type { CustomerService } from './customer-service.js';
import type { Identity } from './identity.js';
import type { KeyRepository } from './key-repository.js';
import type { TurnPrincipals } from './turn-principals.js';

export interface IdentityDeps extends BaseDeps {
  customers: CustomerService;
  keys: KeyRepository;
  identity: Identity;
  /** Which key each running agent turn acts for (bound by the agent, read by the gateway's auth). */
  turnPrincipals: TurnPrincipals;
}
