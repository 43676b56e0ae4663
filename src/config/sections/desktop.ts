/** Desktop client: versioned documents, bug reports, presence, the shoutbox, coder projects and desktop chat (free quota, research). */
import { Type, type Static } from '@sinclair/typebox';
import { ObjectWorkspaceSection } from './object-workspace.js';

export const DesktopSection = Type.Object(
  {
    documentMaxBytes: Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      default: 1024 * 1024,
      description: 'Largest coding-session or sync document (UTF-8 bytes of its JSON); larger PUTs are 413.',
    }),
    documentMaxDepth: Type.Integer({
      minimum: 2,
      maximum: 256,
      default: 64,
      description: 'Deepest nesting of objects and arrays accepted in a document (422 beyond).',
    }),
    bugReportMaxBytes: Type.Integer({
      minimum: 256,
      maximum: 4 * 1024 * 1024,
      default: 64 * 1024,
      description: 'Largest bug report (text plus log excerpt, UTF-8 bytes); larger ones are 413.',
    }),
    presenceTtlSeconds: Type.Integer({
      minimum: 10,
      maximum: 24 * 3600,
      default: 120,
      description: 'A desktop client counts as online this long after its last heartbeat.',
    }),
    shoutbox: Type.Object(
      {
        maxMessageChars: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
        messagesPerMinute: Type.Integer({
          minimum: 1,
          maximum: 1000,
          default: 6,
          description: 'Messages one customer may post per minute (429 beyond).',
        }),
        heartbeatMs: Type.Integer({
          minimum: 100,
          maximum: 15_000,
          default: 15_000,
          description: 'Heartbeat comment interval of the live shoutbox stream.',
        }),
        pollMs: Type.Integer({
          minimum: 100,
          maximum: 60_000,
          default: 2_000,
          description: "How often a node with open shoutbox streams checks for other nodes' posts.",
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    coder: Type.Object(
      {
        freeSlots: Type.Integer({
          minimum: 0,
          maximum: 1000,
          default: 2,
          description: 'Coder projects every customer may hold without buying slots.',
        }),
        slotPriceMicros: Type.Integer({
          minimum: 0,
          maximum: 1_000_000_000_000,
          default: 5_000_000,
          description: 'Price of one extra coder project slot in µUSD, paid from the token wallet.',
        }),
        maxSlots: Type.Integer({
          minimum: 1,
          maximum: 10_000,
          default: 50,
          description: 'Most slots (free plus bought) one customer may hold; buying beyond → 409.',
        }),
        databaseAdminUrl: Type.Optional(
          Type.String({
            pattern: '^postgres(ql)?://',
            description:
              'PostgreSQL URL of a role allowed to CREATE ROLE and CREATE DATABASE; managed databases are created there. Absent: the service database when it is PostgreSQL, else a SQLite file per project.',
          }),
        ),
        databaseNamePrefix: Type.String({
          pattern: '^[a-z][a-z0-9_]{0,23}$',
          default: 'switchyard_coder',
          description: 'Prefix of managed database and role names (PostgreSQL).',
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    chat: Type.Object(
      {
        freeDailyMessages: Type.Integer({
          minimum: 0,
          maximum: 100_000,
          default: 20,
          description: 'Free desktop chat messages per customer and UTC day on the free models (0: none); beyond them the wallet pays.',
        }),
        freeModels: Type.Array(Type.String({ minLength: 1 }), {
          default: ['power-ai'],
          description: 'Model ids or aliases (as a conversation names them) whose messages may use the free daily quota.',
        }),
        contextMessages: Type.Integer({
          minimum: 0,
          maximum: 1000,
          default: 100,
          description: 'Earlier messages sent with a prompt as its context.',
        }),
        researchMaxSections: Type.Integer({
          minimum: 1,
          maximum: 6,
          default: 6,
          description: 'Most sections a research analysis writes (one billed model call each, after the plan call).',
        }),
        researchMaxOutputTokens: Type.Integer({
          minimum: 256,
          maximum: 64_000,
          default: 4096,
          description: 'Output cap of each research model call (bounds its hold and cost).',
        }),
        researchSources: Type.Object(
          {
            searchUrl: Type.Optional(
              Type.String({
                pattern: '^https?://',
                description:
                  'Search API the research retrieves sources from: GET <searchUrl>?q=<question>&count=<n> answering {results: [{url, title, snippet}]}. Absent: the model’s own web search where its provider has it, else none.',
              }),
            ),
            searchApiKey: Type.Optional(
              Type.String({ description: 'Bearer token sent to the search API (`${RESEARCH_SEARCH_API_KEY}`).' }),
            ),
            maxResults: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Search results handed to the model.' }),
            allowHosts: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
              default: [],
              description: 'Hosts a source may be fetched from although private (names, `*.example.com`, addresses, CIDRs).',
            }),
            ports: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { default: [443], description: 'Ports a source may use.' }),
            maxBytes: Type.Integer({ minimum: 1024, default: 2 * 1024 * 1024, description: 'Largest source page read when checking it.' }),
            timeoutMs: Type.Integer({ minimum: 500, default: 10_000, description: 'Deadline of one source check.' }),
            extraCaFile: Type.Optional(
              Type.String({
                minLength: 1,
                description: 'PEM file of extra trusted CA certificates for source checks (local test set-ups).',
              }),
            ),
          },
          { default: {}, additionalProperties: false },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    objectWorkspace: ObjectWorkspaceSection,
  },
  { default: {}, additionalProperties: false },
);
export type DesktopConfig = Static<typeof DesktopSection>;
