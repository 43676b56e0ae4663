/**
 * Direct surface composition: the direct thread and turn service, the models and release lookups, and the raw
 * JSON-RPC passthrough, all on the agent's per-customer app-servers, approval broker and event log.
 */
import type { AgentServices } from '../agent/index.js';
import { ProjectEventSink } from '../agent/event-sink.js';
import type { ProjectEvents } from '../agent/events/index.js';
import { defaultCodexBinary } from '../agent/runtime-config.js';
import { ThreadRepository } from '../agent/thread-repository.js';
import type { GatewayServices } from '../gateway/index.js';
import { DirectModels } from './direct-models.js';
import { DirectService } from './direct-service.js';
import { DirectThreads, directStreamId } from './direct-threads.js';
import { RpcPassthrough } from './rpc-passthrough.js';
import { DirectThreadOwners } from './thread-owners.js';
import { WorkspaceRoots } from './workspace.js';
import type { IdentityDeps } from '../accounts/deps.js';

/** What this domain takes from the composition root. */
export type DirectDeps = IdentityDeps;

export { directStreamId } from './direct-threads.js';

export interface DirectServices {
  threads: DirectService;
  catalog: DirectModels;
  rpc: RpcPassthrough;
  owners: DirectThreadOwners;
  /** Realpath of the customer's workspace root (created on first use). */
  workspaceRoot(customerId: number): Promise<string>;
  /** The customer's direct event stream id in the project event log, created on first use. */
  stream(customerId: number): Promise<string>;
}

export function createDirectServices(
  deps: DirectDeps,
  domains: { agent: AgentServices; gateway: GatewayServices; projectEvents: ProjectEvents },
): DirectServices {
  const { storage, clock, config } = deps;
  const logger = deps.logger.child({ domain: 'direct' });
  const { agent } = domains;
  const workspace = new WorkspaceRoots(config.env.dataDir);
  const owners = new DirectThreadOwners(storage, clock);
  const live = new DirectThreads({
    storage,
    clock,
    events: new ProjectEventSink(domains.projectEvents, logger),
    approvals: agent.approvals,
    owners,
    subscriberCount: (streamId) => domains.projectEvents.subscriberCount(streamId),
    logger,
    turnPrincipals: deps.turnPrincipals,
    router: agent.router,
  });
  agent.router.register(live);
  const projectThreads = new ThreadRepository(storage, clock);
  const acquire = (customerId: number) => agent.supervisor.acquire(customerId);
  const policy = agent.turnPolicy;
  return {
    threads: new DirectService({
      acquire,
      workspace,
      owners,
      threads: live,
      projectThreads,
      policy,
      customerDefaults: agent.customerDefaults,
      rules: agent.rules,
      defaultModel: config.agent.defaultModel,
    }),
    catalog: new DirectModels({
      supervisor: agent.supervisor,
      gateway: domains.gateway,
      binary: config.agent.codexBinary ?? defaultCodexBinary(),
    }),
    rpc: new RpcPassthrough({
      acquire,
      workspace,
      owners,
      threads: live,
      projectThreads,
      policy,
      rules: agent.rules,
      defaultModel: config.agent.defaultModel,
    }),
    owners,
    workspaceRoot: (customerId) => workspace.root(customerId),
    async stream(customerId) {
      await live.ensureStream(customerId, await workspace.root(customerId));
      return directStreamId(customerId);
    },
  };
}
