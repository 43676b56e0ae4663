/**
 * Builds the Fastify application from the services; `main.ts` alone listens. The cross-cutting behaviour is one
 * file each under `plugins/`, registered here in the order requests meet it: request ids and the request record,
 * JSON parsing, authentication (onRequest, before any body is read), the agent's connections, affinity between
 * nodes, per-route checks, error rendering in the caller's protocol and 404s, and the OpenAPI document.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Principal } from '../accounts/principal.js';
import type { Services } from '../services.js';
import type { Span } from '../telemetry/index.js';
import { registerAffinity } from './affinity.js';
import { DrainState } from './drain.js';
import { sendError, toAppError } from './error-handler.js';
import { lazyChildLogger } from './lazy-logger.js';
import { registerAgentConnections } from './plugins/agent-connections.js';
import { registerAuthentication } from './plugins/authentication.js';
import { registerErrorHandlers } from './plugins/errors.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerRequestRecord, requestIdFor } from './plugins/request-record.js';
import { registerRouteChecks } from './plugins/route-checks.js';
import './route-config.js';
import type { BodySuspicions } from './validation.js';
import { registerRoutes } from './routes/index.js';
import { applyResponseContract, CONTRACT_CHECK_ENV } from './contract/index.js';
import type { App } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Set by the JSON parser: what the raw text could hold that no part of the service can use (null: nothing). */
    bodySuspicions: BodySuspicions | null;
    /** The client's own request id (its x-request-id), recorded and echoed beside the service's id. */
    clientRequestId: string | null;
    /** The request's span while tracing is on. */
    traceSpan: Span | undefined;
    /** Counted and logged once, by whichever of `onResponse` and the response's `close` comes first. */
    recorded: boolean;
  }
  interface FastifyInstance {
    /** Set when the node starts draining (readiness answers 503). */
    drain: DrainState;
  }
}

/** `server.trustProxy` as Fastify takes it: off, the proxies' addresses, or a hop count (the nearest n hops). */
function trustProxyOption(setting: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}

export type { App };
/** Kept for callers that send an error themselves; the handlers live in error-handler.ts. */
export { sendError };
export { CLIENT_CLOSED_STATUS, clientRequestIdOf, requestIdFor } from './plugins/request-record.js';

function fastifyOptions(services: Services): FastifyServerOptions {
  const { config } = services;
  return {
    loggerInstance: services.logger as FastifyBaseLogger,
    genReqId: (request) => requestIdFor(request.headers),
    bodyLimit: config.server.bodyLimitBytes,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    childLoggerFactory: lazyChildLogger,
    // The client's address (request.ip) behind the configured proxies; the socket's own address without any.
    trustProxy: trustProxyOption(config.server.trustProxy),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // No type coercion: a body's string is never a number nor its number a string. Query and path values (always
    // text) are converted by `coerceParameters` before validation, decimal notation only.
    ajv: { customOptions: { coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: true, strictNumbers: true } },
    // Errors the router raises before any hook runs (a malformed percent-encoding, an over-long parameter) get
    // the request id and the caller's error shape like every other error.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      sendError(request, reply, toAppError(error));
    },
  };
}

export async function buildApp(services: Services): Promise<App> {
  const app = Fastify(fastifyOptions(services)).withTypeProvider<TypeBoxTypeProvider>() as App;
  app.decorate('drain', new DrainState());
  app.decorateRequest('principal', null);
  app.decorateRequest('bodySuspicions', null);
  app.decorateRequest('clientRequestId', null);
  app.decorateRequest('traceSpan', undefined);
  app.decorateRequest('recorded', false);

  registerJsonBody(app);
  registerRequestRecord(app, services);
  registerAuthentication(app, services);
  registerAgentConnections(app, services);
  // Several nodes: requests needing a customer's app-server go to the node holding its lease (after authentication).
  if (services.scale) registerAffinity(app, services.scale);
  registerRouteChecks(app, services);
  registerErrorHandlers(app);
  await registerOpenApi(app, services.config);
  applyResponseContract(app, { check: process.env[CONTRACT_CHECK_ENV] === '1' });
  await registerRoutes(app, services);
  return app;
}
