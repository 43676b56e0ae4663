/** Timed work (the job runner) and the mail the service sends on its own (engagement preferences). */
import { Type, type Static } from '@sinclair/typebox';

const HOUR_MS = 3_600_000;

export const JobsSection = Type.Object(
  {
    pollIntervalMs: Type.Integer({
      minimum: 100,
      default: 5_000,
      description: 'How often each node looks for due jobs (a job runs at most this long after its time).',
    }),
    leaseMs: Type.Integer({
      minimum: 1_000,
      default: 10 * 60_000,
      description: 'A node running a job holds it this long; a job whose node died is taken over by another node once it lapsed.',
    }),
    retryBaseMs: Type.Integer({
      minimum: 1_000,
      default: 60_000,
      description: 'A failed run is retried after this long, doubling with each failure up to one hour.',
    }),
    alertScanIntervalMs: Type.Integer({ minimum: 1_000, default: 5 * 60_000, description: 'Key expiry and spending-limit alert scan.' }),
    retentionIntervalMs: Type.Integer({
      minimum: 1_000,
      default: HOUR_MS,
      description: 'Retention run (expired sign-in rows, old project events).',
    }),
    retentionGraceMs: Type.Integer({
      minimum: 0,
      default: 24 * HOUR_MS,
      description:
        'Expired sessions, sign-in challenges, reset and SSO links, identity-provider states and human checks are deleted this long after they expired.',
    }),
    autoTopupIntervalMs: Type.Integer({
      minimum: 1_000,
      default: 5 * 60_000,
      description:
        'Auto top-up sweep: customers below their threshold with an armed setting are charged (the same rule as after a settlement).',
    }),
    mailRetryIntervalMs: Type.Integer({ minimum: 1_000, default: 60_000, description: 'How often failed mail is retried.' }),
    mailMaxAttempts: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 8,
      description: 'Attempts of one mail before it is given up (logged).',
    }),
  },
  { default: {}, additionalProperties: false },
);
export type JobsConfig = Static<typeof JobsSection>;

export const EngagementSection = Type.Object(
  {
    lowBalanceMicros: Type.Integer({
      minimum: 0,
      default: 2_000_000,
      description:
        'A low-balance mail (email.billing) goes out when a settlement takes the token wallet below this; once per crossing. 0: never.',
    }),
    digestWeekday: Type.Integer({ minimum: 0, maximum: 6, default: 1, description: 'Weekly digest day (0 Sunday … 6 Saturday, UTC).' }),
    digestHourUtc: Type.Integer({ minimum: 0, maximum: 23, default: 9, description: 'Weekly digest hour (UTC).' }),
  },
  { default: {}, additionalProperties: false },
);
export type EngagementConfig = Static<typeof EngagementSection>;
