/**
 * Scale-out composition (`scaleOut.enabled`, PostgreSQL and Redis): the lease manager of this node, the write
 * fence, the forwarder to lease holders and the project → owner lookup the HTTP layer routes by. Disabled (one
 * node), nothing here runs: no lease row, no fence query, no forward.
 */
import os from 'node:os';
import { ConfigError } from '../config/env.js';
import { randomBase62 } from '../kernel/ids.js';
import { LeaseFence, type WriteFence } from './fence.js';
import { Forwarder, HopSigner } from './forward.js';
import { LeaseManager, type LeaseHooks } from './lease-manager.js';
import { LeaseStore } from './lease-store.js';
import type { BaseDeps } from '../storage/base-deps.js';

export { FORWARDED_HEADER } from './forward.js';
export type { LeaseHooks, LeaseLocation } from './lease-manager.js';

const OWNER_CACHE_MAX = 10_000;

export interface ScaleOut {
  nodeId: string;
  leases: LeaseManager;
  fence: WriteFence;
  signer: HopSigner;
  forwarder: Forwarder;
  store: LeaseStore;
  /** The customer owning a project (projects never change owner, so answers are cached); null when unknown. */
  projectOwner(projectId: string): Promise<number | null>;
  /** Hooks of the agent domain, bound once it exists. */
  bind(hooks: LeaseHooks): void;
  /** This node's base URL for the others (from config, else the listening address). */
  setListenUrl(url: string): void;
  start(): void;
  close(): Promise<void>;
}

/** The scale-out services, or null on a one-node deployment. */
export function createScaleOut(deps: BaseDeps): ScaleOut | null {
  const { config, storage, clock, logger } = deps;
  const settings = config.scaleOut;
  if (!settings.enabled) return null;
  if (!config.env.databaseUrl)
    throw new ConfigError('scaleOut.enabled needs DATABASE_URL (PostgreSQL): the nodes share leases, wallets and keys there');
  if (!config.env.redisUrl)
    throw new ConfigError('scaleOut.enabled needs REDIS_URL: rate limits and live project events cross nodes through Redis');
  const nodeId = settings.nodeId ?? `${os.hostname()}-${process.pid}-${randomBase62(6)}`;
  const log = logger.child({ domain: 'scale-out', node: nodeId });
  const store = new LeaseStore(storage, clock);
  let hooks: LeaseHooks | null = null;
  const leases = new LeaseManager(
    store,
    { nodeId, ttlMs: settings.leaseTtlMs, clock, logger: log },
    {
      onAcquired: (customerId, previous) => hooks?.onAcquired(customerId, previous) ?? Promise.resolve(),
      onLost: (customerId) => hooks?.onLost(customerId) ?? Promise.resolve(),
      inUse: (customerId) => hooks?.inUse(customerId) ?? false,
    },
  );
  if (settings.internalUrl) leases.setUrl(settings.internalUrl);
  const signer = new HopSigner(config.secret);
  const forwarder = new Forwarder(signer, nodeId, settings.forwardTimeoutMs);
  const owners = new Map<string, number>();

  return {
    nodeId,
    leases,
    fence: new LeaseFence(store, leases),
    signer,
    forwarder,
    store,
    async projectOwner(projectId) {
      const cached = owners.get(projectId);
      if (cached !== undefined) return cached;
      const row = await storage.db.selectFrom('projects').select('customer_id').where('id', '=', projectId).executeTakeFirst();
      if (!row) return null;
      if (owners.size >= OWNER_CACHE_MAX) owners.delete(owners.keys().next().value!);
      owners.set(projectId, Number(row.customer_id));
      return Number(row.customer_id);
    },
    bind(bound) {
      hooks = bound;
    },
    setListenUrl(url) {
      if (!settings.internalUrl) leases.setUrl(url);
    },
    start() {
      leases.start();
      log.info({ leaseTtlMs: settings.leaseTtlMs }, 'scale-out enabled');
    },
    async close() {
      await leases.close();
      await forwarder.close();
    },
  };
}
