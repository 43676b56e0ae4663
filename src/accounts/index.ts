/**
 * The accounts domain's second half: dashboard sessions and sign-in flows, mail, alerts, inbox and settings.
 * Built once by the composition root from the shared deps.
 */
import { Redis } from 'ioredis';
import { AddressLimits } from './address-limits.js';
import { AlertService } from './alerts.js';
import { EmailVerification } from './email-verification.js';
import { HumanCheckService } from './human-check.js';
import { Inbox } from './inbox.js';
import { OidcSignIn, type OidcDeps } from './oidc.js';
import { OperatorSessions } from './operator-sessions.js';
import { FlooredFailureCounters, Lockout, MemoryFailureCounters, RedisFailureCounters, type FailureCounters } from './lockout.js';
import { createMailer, type Mailer } from './mailer.js';
import { SecretBox } from './secrets.js';
import { SessionService } from './sessions.js';
import { AccountSettings } from './settings.js';
import { SsoLinks } from './sso.js';
import { WebAuth } from './web-auth.js';
import type { IdentityDeps } from './deps.js';

/** What this domain takes from the composition root. */
export type AccountDeps = Omit<IdentityDeps, 'turnPrincipals'>;

export interface AccountServices {
  box: SecretBox;
  sessions: SessionService;
  /** Operator console sessions (a short-lived operator key in a cookie). */
  operatorSessions: OperatorSessions;
  webAuth: WebAuth;
  humanChecks: HumanCheckService;
  lockout: Lockout;
  mailer: Mailer;
  inbox: Inbox;
  alerts: AlertService;
  settings: AccountSettings;
  sso: SsoLinks;
  oidc: OidcSignIn;
  /** Sign-up (and email-change) verification links; free credit needs a verified email. */
  emailVerification: EmailVerification;
  /** The operator's limits per address prefix on sign-ups and promotion claims. */
  addressLimits: AddressLimits;
  /** Where the configuration requires a solved human check. */
  humanCheckRequired(place: 'register' | 'promotion' | 'idp' | 'web-login'): boolean;
  start(): void;
  close(): Promise<void>;
}

/** How often key expiry and spending alerts are scanned for every customer. */
export const ALERT_SCAN_INTERVAL_MS = 5 * 60_000;

export function createAccountServices(
  deps: AccountDeps,
  options: { mailer?: Mailer; onSignedUp?: OidcDeps['onSignedUp'] } = {},
): AccountServices {
  const { config, storage, clock, logger } = deps;
  const box = new SecretBox(config.secret);
  const counters: FailureCounters = config.env.redisUrl
    ? new FlooredFailureCounters(
        new RedisFailureCounters(new Redis(config.env.redisUrl, { maxRetriesPerRequest: 2 }), 'switchyard:lockout:'),
        new MemoryFailureCounters(clock),
      )
    : new MemoryFailureCounters(clock);
  const lockout = new Lockout(counters, config.accounts.lockout);
  const sessions = new SessionService(storage, box, clock, {
    idleMs: config.accounts.sessionIdleMinutes * 60_000,
    absoluteMs: config.accounts.sessionAbsoluteHours * 3_600_000,
  });
  const humanChecks = new HumanCheckService(storage, box, clock, {
    cost: config.accounts.humanCheck.cost,
    maxCounter: config.accounts.humanCheck.maxCounter,
  });
  const mailer = options.mailer ?? createMailer(config.mail, logger);
  const required = new Set(config.accounts.humanCheck.requiredFor);
  const webAuth = new WebAuth({
    storage,
    clock,
    logger,
    box,
    sessions,
    lockout,
    humanChecks,
    mailer,
    publicBaseUrl: config.publicBaseUrl,
    humanCheckAfterFailures: required.has('web-login') ? config.accounts.humanCheck.webLoginAfterFailures : undefined,
  });
  const settings = new AccountSettings(
    storage,
    clock,
    () => config.regions,
    () => config.agent,
  );
  // Alert mail honours the customer's engagement preferences (email.keyAlerts).
  const alerts = new AlertService(storage, clock, box, (customerId, alert) => {
    void (async () => {
      if (!(await settings.mayEmail(customerId, 'keyAlerts'))) return;
      const customer = await storage.db.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirst();
      if (!customer) return;
      await mailer.send({
        to: customer.email,
        subject: `Switchyard alert: ${alert.cause.replace(/_/g, ' ')}`,
        text: `An alert was raised on your account (${alert.cause}${alert.keyId ? `, key ${alert.keyId}` : ''}). See the dashboard for details.`,
      });
    })().catch((error: unknown) => logger.error({ err: error }, 'sending the alert mail failed'));
  });
  let scanner: NodeJS.Timeout | undefined;
  return {
    box,
    sessions,
    operatorSessions: new OperatorSessions(storage, deps.keys, deps.identity, box, clock),
    webAuth,
    humanChecks,
    lockout,
    mailer,
    inbox: new Inbox(storage, clock),
    alerts,
    settings,
    sso: new SsoLinks(storage, box, clock),
    emailVerification: new EmailVerification(storage, box, clock, mailer, logger, config.publicBaseUrl),
    addressLimits: new AddressLimits(storage, box, clock, () => ({
      signup: config.accounts.prefixLimits.signupsPerDay,
      promotion: config.accounts.prefixLimits.promotionClaimsPerDay,
    })),
    oidc: new OidcSignIn({
      storage,
      box,
      clock,
      logger,
      customers: deps.customers,
      config: config.idp,
      publicBaseUrl: config.publicBaseUrl,
      onSignedUp: options.onSignedUp,
    }),
    humanCheckRequired: (place) => required.has(place),
    start() {
      scanner = setInterval(() => {
        void alerts.scanAll().catch((error: unknown) => logger.error({ err: error }, 'scanning key alerts failed'));
      }, ALERT_SCAN_INTERVAL_MS);
      scanner.unref();
    },
    async close() {
      if (scanner) clearInterval(scanner);
      await counters.close();
      await mailer.close();
    },
  };
}
