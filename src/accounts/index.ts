/**
 * The accounts domain's second half: dashboard sessions and sign-in flows, mail, alerts, inbox and settings.
 * Built once by the composition root from the shared deps.
 */
import { newRedis } from '../kernel/redis-client.js';
import { AddressLimits } from './address-limits.js';
import { AlertService } from './alerts.js';
import { EmailVerification } from './email-verification.js';
import { HumanCheckService } from './human-check.js';
import { Invites, type Registration } from './invites.js';
import { Inbox } from './inbox.js';
import { OidcError, OidcSignIn, type OidcDeps } from './oidc.js';
import { OperatorSessions } from './operator-sessions.js';
import { FlooredFailureCounters, Lockout, MemoryFailureCounters, RedisFailureCounters, type FailureCounters } from './lockout.js';
import { createMailer, readOutbox, type Mailer, type OutboxEntry } from './mailer.js';
import { MailOutbox } from './mail-outbox.js';
import { UnsubscribeLinks } from './unsubscribe.js';
import { alertNotice, BURSTY_CAUSES, NOTICES_PER_DAY } from './alert-notices.js';
import { SecretBox } from './secrets.js';
import { SessionService } from './sessions.js';
import { AccountSettings, type EmailPreference } from './settings.js';
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
  /** Mail the service sends on its own: stored, sent, retried by the job runner. */
  outbox: MailOutbox;
  /** Signed one-click unsubscribe links of that mail. */
  unsubscribe: UnsubscribeLinks;
  inbox: Inbox;
  alerts: AlertService;
  settings: AccountSettings;
  sso: SsoLinks;
  oidc: OidcSignIn;
  /** Sign-up (and email-change) verification links; free credit needs a verified email. */
  emailVerification: EmailVerification;
  /** The operator's limits per address prefix on sign-ups and promotion claims. */
  addressLimits: AddressLimits;
  /** Invites and password-set links sent from the console. */
  invites: Invites;
  /** The mail outbox (kept without SMTP), newest first. */
  readOutbox(query: { limit: number; beforeId?: number; to?: string }): Promise<OutboxEntry[]>;
  /** Who may create an account (`accounts.registration`). */
  registration: Registration;
  /** Where the configuration requires a solved human check. */
  humanCheckRequired(place: 'register' | 'promotion' | 'idp' | 'web-login'): boolean;
  close(): Promise<void>;
}

export function createAccountServices(
  deps: AccountDeps,
  options: { mailer?: Mailer; onSignedUp?: OidcDeps['onSignedUp'] } = {},
): AccountServices {
  const { config, storage, clock, logger } = deps;
  const box = new SecretBox(config.secret);
  const counters = failureCounters(config.env.redisUrl, clock);
  const lockout = new Lockout(counters, config.accounts.lockout);
  const sessions = new SessionService(storage, box, clock, {
    idleMs: config.accounts.sessionIdleMinutes * 60_000,
    absoluteMs: config.accounts.sessionAbsoluteHours * 3_600_000,
  });
  const humanChecks = new HumanCheckService(storage, box, clock, {
    cost: config.accounts.humanCheck.cost,
    maxCounter: config.accounts.humanCheck.maxCounter,
  });
  const mailer = options.mailer ?? createMailer(config.mail, { storage, clock, logger });
  const required = new Set(config.accounts.humanCheck.requiredFor);
  const settings = new AccountSettings(
    storage,
    clock,
    () => config.regions,
    () => config.agent,
  );
  const outbox = new MailOutbox(storage, clock, mailer, logger, {
    maxAttempts: config.jobs.mailMaxAttempts,
    retryBaseMs: config.jobs.retryBaseMs,
    stillWanted: (customerId, preference) => settings.mayEmail(customerId, preference as EmailPreference),
  });
  const unsubscribe = new UnsubscribeLinks(box, settings, config.publicBaseUrl);
  const inbox = new Inbox(storage, clock, (customerId) => settings.mayShow(customerId, 'announcements'));
  // A new alert: mailed when email.keyAlerts is on, and the key and sign-in ones land in the inbox when inApp.keyAlerts is on.
  const alerts = new AlertService(storage, clock, box, alertNotifier({ storage, clock, logger, settings, inbox, outbox, unsubscribe }));
  const webAuth = webAuthOf(deps, { box, sessions, lockout, humanChecks, mailer, alerts, required });
  const invites = new Invites({
    storage,
    box,
    clock,
    mailer,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    ttlMs: config.accounts.inviteTtlHours * 3_600_000,
    delivery: config.mail.smtp ? 'smtp' : 'outbox',
  });
  return {
    invites,
    readOutbox: (query) => readOutbox(storage, query),
    registration: config.accounts.registration,
    box,
    sessions,
    operatorSessions: new OperatorSessions(storage, deps.keys, deps.identity, box, clock),
    webAuth,
    humanChecks,
    lockout,
    mailer,
    outbox,
    unsubscribe,
    inbox,
    alerts,
    settings,
    sso: new SsoLinks(storage, box, clock),
    emailVerification: new EmailVerification(storage, box, clock, mailer, logger, config.publicBaseUrl),
    addressLimits: new AddressLimits(storage, box, clock, () => ({
      signup: config.accounts.prefixLimits.signupsPerDay,
      promotion: config.accounts.prefixLimits.promotionClaimsPerDay,
    })),
    oidc: oidcSignIn(deps, { box, invites, onSignedUp: options.onSignedUp }),
    humanCheckRequired: (place) => required.has(place),
    async close() {
      await outbox.idle();
      await counters.close();
      await mailer.close();
    },
  };
}

/** Sign-in failure counters: shared through Redis when configured (floored by this process's own), else in memory. */
function failureCounters(redisUrl: string | undefined, clock: AccountDeps['clock']): FailureCounters {
  return redisUrl
    ? new FlooredFailureCounters(
        new RedisFailureCounters(newRedis(redisUrl, { maxRetriesPerRequest: 2 }), 'switchyard:lockout:'),
        new MemoryFailureCounters(clock),
      )
    : new MemoryFailureCounters(clock);
}

interface AlertNotifierParts {
  storage: AccountDeps['storage'];
  clock: AccountDeps['clock'];
  logger: AccountDeps['logger'];
  settings: AccountSettings;
  inbox: Inbox;
  outbox: MailOutbox;
  unsubscribe: UnsubscribeLinks;
}

/** A new alert: mailed when email.keyAlerts is on, and the key and sign-in ones land in the inbox when inApp.keyAlerts is on. */
function alertNotifier(parts: AlertNotifierParts): ConstructorParameters<typeof AlertService>[3] {
  const { storage, clock, logger, settings, inbox, outbox, unsubscribe } = parts;
  return (customerId, alert) => {
    void (async () => {
      if (BURSTY_CAUSES.includes(alert.cause)) {
        // This alert's place among the day's alerts of its cause: those raised before it and itself. Counting every
        // alert of the day instead, a burst stored before its first notifiers ran left the first ones unnoticed.
        const today = await storage.db
          .selectFrom('account_alerts')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .where('customer_id', '=', customerId)
          .where('cause', '=', alert.cause)
          .where('created_at', '>', clock.nowMs() - 86_400_000)
          .where((eb) =>
            eb(
              'id',
              '<=',
              eb
                .selectFrom('account_alerts')
                .select('id')
                .where('customer_id', '=', customerId)
                .where('cause', '=', alert.cause)
                .where('cause_key', '=', alert.causeKey),
            ),
          )
          .executeTakeFirst();
        if (Number(today?.count ?? 0) > NOTICES_PER_DAY) return;
      }
      const notice = alertNotice(alert);
      if (notice && (await settings.mayShow(customerId, 'keyAlerts'))) await inbox.notify(customerId, notice.title, notice.body);
      if (!(await settings.mayEmail(customerId, 'keyAlerts'))) return;
      const customer = await storage.db.selectFrom('customers').select('email').where('id', '=', customerId).executeTakeFirst();
      if (!customer) return;
      const link = unsubscribe.url(customerId, 'keyAlerts');
      await outbox.send({
        customerId,
        kind: 'alert',
        to: customer.email,
        subject: `Switchyard alert: ${alert.cause.replace(/_/g, ' ')}`,
        text: `An alert was raised on your account (${alert.cause}${alert.keyId ? `, key ${alert.keyId}` : ''}). See the dashboard for details.${notice ? `\n\n${notice.body}` : ''}\n\nNo more alert mail: ${link}`,
        unsubscribeUrl: link,
        preference: 'keyAlerts',
      });
    })().catch((error: unknown) => logger.error({ err: error }, 'notifying the alert failed'));
  };
}

/** Sign-in through the identity provider; a sign-up is admitted by the registration setting (invites by email). */
function oidcSignIn(deps: AccountDeps, parts: { box: SecretBox; invites: Invites; onSignedUp?: OidcDeps['onSignedUp'] }): OidcSignIn {
  const { config, storage, clock, logger } = deps;
  return new OidcSignIn({
    storage,
    box: parts.box,
    clock,
    logger,
    customers: deps.customers,
    config: config.idp,
    publicBaseUrl: config.publicBaseUrl,
    admitSignUp: async (trx, email, customerId) => {
      if (config.accounts.registration === 'open') return;
      if (config.accounts.registration === 'invite' && (await parts.invites.redeemForEmail(trx, email, customerId))) return;
      throw new OidcError('registration_closed', `sign-up of ${email} refused: registration is ${config.accounts.registration}`);
    },
    onSignedUp: parts.onSignedUp,
  });
}

interface WebAuthParts {
  box: SecretBox;
  sessions: SessionService;
  lockout: Lockout;
  humanChecks: HumanCheckService;
  mailer: Mailer;
  alerts: AlertService;
  required: Set<string>;
}

/** E-mail and password sign-in of the dashboard; a sign-in from a new network raises an alert. */
function webAuthOf(deps: AccountDeps, parts: WebAuthParts): WebAuth {
  const { config, storage, clock, logger } = deps;
  return new WebAuth({
    storage,
    clock,
    logger,
    box: parts.box,
    sessions: parts.sessions,
    lockout: parts.lockout,
    humanChecks: parts.humanChecks,
    mailer: parts.mailer,
    publicBaseUrl: config.publicBaseUrl,
    humanCheckAfterFailures: parts.required.has('web-login') ? config.accounts.humanCheck.webLoginAfterFailures : undefined,
    onSignedIn: (customerId, ip) => (ip === undefined ? Promise.resolve() : parts.alerts.signInFrom(customerId, ip)),
  });
}
