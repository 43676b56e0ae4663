/** Per-route options every route module declares in `config`. */
import type { Surface } from '../accounts/principal.js';

export interface RouteOptionsConfig {
  /** `public`: no bearer; `api`: any principal; `operator`: operator principals only. Default `api`. */
  auth?: 'public' | 'api' | 'operator';
  /** Surface checked against the key policy (`allowed surfaces`). */
  surface?: Surface;
  /** Accept `x-api-key` as the bearer (Anthropic clients). */
  allowApiKeyHeader?: boolean;
  /** Error shape of a route outside a prefix scope with its own error handler (the /v1 routes until theirs lands). */
  /**
   * Who among authenticated callers may use the route, checked before the handler (http/caller.ts): `customer`
   * (operators: 403 "This route needs a customer key"), `wallet-owner` (operators: 404 "Wallet not found"),
   * `project-owner` (operators: 403 "Projects belong to customers…"), `key-manager` (customers whose key may
   * manage keys; a User API Key: 403). Handlers that read the customer (`customerOf`) need one.
   */
  caller?: CallerRule;
}

export type CallerRule = 'customer' | 'wallet-owner' | 'project-owner' | 'key-manager';

declare module 'fastify' {
  interface FastifyContextConfig extends RouteOptionsConfig {}
}
