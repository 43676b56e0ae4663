/** Agent (app-server) configuration and the defaults applied to managed projects. */
import { Type, type Static } from '@sinclair/typebox';
import { AgentLimitsSection } from './agent-limits.js';

export const AgentSection = Type.Object(
  {
    /** Path of the codex binary; default: the native binary shipped by @openai/codex. */
    codexBinary: Type.Optional(Type.String({ minLength: 1 })),
    defaultModel: Type.String({ minLength: 1, default: 'power-ai' }),
    /** Known coding model of the bundled Codex catalog whose metadata (tools, instructions) our models get. */
    modelTemplate: Type.String({ minLength: 1, default: 'gpt-5.5' }),
    /** Retries of the app-server's own provider client; the gateway already retries upstreams. */
    providerRetries: Type.Integer({ minimum: 0, maximum: 5, default: 0 }),
    webSearch: Type.Union([Type.Literal('live'), Type.Literal('cached'), Type.Literal('disabled')], { default: 'live' }),
    reasoningEffort: Type.String({ minLength: 1, default: 'xhigh' }),
    approvalPolicy: Type.Union([Type.Literal('never'), Type.Literal('on-request'), Type.Literal('untrusted')], { default: 'never' }),
    sandbox: Type.Union([Type.Literal('danger-full-access'), Type.Literal('workspace-write'), Type.Literal('read-only')], {
      default: 'danger-full-access',
    }),
    /**
     * How each customer's app-server is isolated: `auto` uses bubblewrap when a test sandbox starts (checked
     * once at start) and otherwise runs without isolation, with a warning; `required` refuses to start an
     * app-server without it; `none` never isolates (single-tenant developer set-ups).
     */
    isolation: Type.Union([Type.Literal('auto'), Type.Literal('required'), Type.Literal('none')], { default: 'auto' }),
    /** The bubblewrap binary. */
    isolationBwrap: Type.String({ minLength: 1, default: '/usr/bin/bwrap' }),
    /** socat, which bridges the service's Unix sockets onto each sandbox's own loopback (its network namespace). */
    isolationSocat: Type.String({ minLength: 1, default: '/usr/bin/socat' }),
    /**
     * Internet access of the agent's own commands (the sandbox has no network but its bridges): `off`, or through
     * the service's egress proxy to the listed domains only (`example.org` exactly, `*.example.org` its
     * sub-domains), never to an address the SSRF policy refuses unless `hosts` names it. `hosts` maps a domain
     * to the address the proxy connects to instead of resolving it (an internal mirror, say).
     */
    egress: Type.Object(
      {
        mode: Type.Union([Type.Literal('off'), Type.Literal('proxy')], { default: 'off' }),
        allowedDomains: Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^(\\*\\.)?[A-Za-z0-9._-]+$' }), {
          default: [],
          maxItems: 1_000,
        }),
        hosts: Type.Record(Type.String({ minLength: 1, maxLength: 253 }), Type.String({ minLength: 1, maxLength: 64 }), { default: {} }),
      },
      { default: {} },
    ),
    /** When the service runs as root, customer N's app-server runs as uid/gid `isolationUidFirst + N`. */
    isolationUidFirst: Type.Integer({ minimum: 1_000, maximum: 4_000_000_000, default: 3_000_000 }),
    /** Size of that range; a customer id at or past it gets no app-server. */
    isolationUidCount: Type.Integer({ minimum: 1, maximum: 100_000_000, default: 1_000_000 }),
    /** Per-customer sandbox limits (processes, memory, CPU, temporary folders, workspace quota). */
    limits: AgentLimitsSection,
    idleStopMs: Type.Integer({ minimum: 1_000, default: 10 * 60_000 }),
    approvalTimeoutMs: Type.Integer({ minimum: 1_000, default: 10 * 60_000 }),
    requestTimeoutMs: Type.Integer({ minimum: 100, default: 60_000 }),
    /** Longest JSON-RPC line accepted from the app-server; longer lines are dropped and logged. */
    lineLengthMaxBytes: Type.Integer({ minimum: 1024, default: 64 * 1024 * 1024 }),
    /** Wait after closing stdin before SIGTERM, and after SIGTERM before SIGKILL. */
    stopGraceMs: Type.Integer({ minimum: 10, default: 2_000 }),
    restartBackoffInitialMs: Type.Integer({ minimum: 10, default: 250 }),
    restartBackoffMaxMs: Type.Integer({ minimum: 10, default: 30_000 }),
    restartAttemptsMax: Type.Integer({ minimum: 1, default: 8 }),
    eventRetention: Type.Integer({ minimum: 10, default: 10_000, description: 'Events kept per project for replay.' }),
    heartbeatMs: Type.Integer({ minimum: 100, maximum: 15_000, default: 15_000 }),
    subscriberQueueMax: Type.Integer({ minimum: 1, default: 1_000 }),
    fileSizeLimitBytes: Type.Integer({ minimum: 1, default: 5 * 1024 * 1024 }),
  },
  { default: {} },
);
export type AgentConfig = Static<typeof AgentSection>;
