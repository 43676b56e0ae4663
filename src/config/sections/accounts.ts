/** Dashboard accounts: sessions, brute-force limits, the human check, outgoing mail and the identity provider. */
import { Type, type Static } from '@sinclair/typebox';

export const AccountsSection = Type.Object(
  {
    registration: Type.Union([Type.Literal('open'), Type.Literal('invite'), Type.Literal('closed')], {
      default: 'invite',
      description:
        'Who may create an account: open (anyone, through POST /api/v1/customer/register or the identity provider), invite (only the email an operator invited, with the invite link) or closed (only the operator creates accounts).',
    }),
    inviteTtlHours: Type.Integer({
      minimum: 1,
      maximum: 90 * 24,
      default: 7 * 24,
      description: 'An invite link, and a password-set link sent from the console, works this long.',
    }),
    sessionIdleMinutes: Type.Integer({
      minimum: 1,
      maximum: 7 * 24 * 60,
      default: 12 * 60,
      description: 'A dashboard session ends after this long without a request.',
    }),
    sessionAbsoluteHours: Type.Integer({
      minimum: 1,
      maximum: 90 * 24,
      default: 7 * 24,
      description: 'A dashboard session ends this long after sign-in, used or not.',
    }),
    recentAuthMinutes: Type.Integer({
      minimum: 1,
      maximum: 24 * 60,
      default: 15,
      description:
        'A dashboard session may mint or change credentials (keys, SSO links, email, password, 2FA) this long after its password or authenticator code was checked.',
    }),
    lockout: Type.Object(
      {
        maxFailures: Type.Integer({
          minimum: 1,
          maximum: 1000,
          default: 10,
          description: 'Failures per account (or per IP, times perIpFactor) before 429.',
        }),
        perIpFactor: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
        windowMinutes: Type.Integer({ minimum: 1, maximum: 24 * 60, default: 15 }),
      },
      { default: {}, additionalProperties: false },
    ),
    prefixLimits: Type.Object(
      {
        signupsPerDay: Type.Integer({
          minimum: 0,
          maximum: 1_000_000,
          default: 5,
          description: 'Sign-ups per address prefix (/24 IPv4, /64 IPv6) in a rolling 24 hours; 0 = no limit.',
        }),
        promotionClaimsPerDay: Type.Integer({
          minimum: 0,
          maximum: 1_000_000,
          default: 15,
          description: 'Promotion claims (check-in, spin, share credit) per address prefix in a rolling 24 hours; 0 = no limit.',
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    humanCheck: Type.Object(
      {
        /**
         * Where a solved human check (ALTCHA proof of work) is required: registration, claiming any promotion,
         * identity-provider sign-up, web login after failures. Web login from an address over its failure limit
         * always asks for it.
         */
        requiredFor: Type.Array(
          Type.Union([Type.Literal('register'), Type.Literal('promotion'), Type.Literal('idp'), Type.Literal('web-login')]),
          { default: ['register', 'promotion'] },
        ),
        /** Web-login failures of an account before a human check is required (when `web-login` is listed). */
        webLoginAfterFailures: Type.Integer({ minimum: 0, maximum: 100, default: 3 }),
        cost: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          default: 2_000,
          description: 'PBKDF2-SHA-256 iterations per attempt of the proof of work.',
        }),
        maxCounter: Type.Integer({
          minimum: 4,
          maximum: 10_000_000,
          default: 8_000,
          description:
            'The challenge hides a counter in [maxCounter/4, maxCounter]; the solver tries counters from 0 up (about 5/8 of it on average).',
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    operatorContact: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'How customers reach the operator for credit (an email address, a URL or a sentence); the dashboard shows it where no payment method is enabled.',
      }),
    ),
  },
  { default: {}, additionalProperties: false },
);
export type AccountsConfig = Static<typeof AccountsSection>;

export const MailSection = Type.Object(
  {
    /** Absent: mail is kept in the outbox the operator reads in the console, and logged (without text unless `logLinks`). */
    smtp: Type.Optional(
      Type.Object(
        {
          host: Type.String({ minLength: 1 }),
          port: Type.Integer({ minimum: 1, maximum: 65535, default: 587 }),
          secure: Type.Boolean({ default: false, description: 'TLS from the first byte (port 465); otherwise STARTTLS when offered.' }),
          user: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    from: Type.String({ minLength: 3, default: 'Switchyard <no-reply@switchyard.invalid>' }),
    /** Local set-ups only: without SMTP the log line carries the whole mail, links and tokens included. */
    logLinks: Type.Boolean({ default: false }),
  },
  { default: {}, additionalProperties: false },
);
export type MailConfig = Static<typeof MailSection>;

export const IdpSection = Type.Object(
  {
    issuer: Type.Optional(Type.String({ pattern: '^https?://' })),
    clientId: Type.Optional(Type.String({ minLength: 1 })),
    clientSecret: Type.Optional(Type.String({ minLength: 1 })),
    /** Exactly the redirect URI registered at the provider; default `<public URL>/api/v1/auth/idp/callback`. */
    redirectUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  },
  { default: {}, additionalProperties: false },
);
export type IdpConfig = Static<typeof IdpSection>;
