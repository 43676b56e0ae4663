/**
 * Retention, run by the job runner (`retention`): rows whose use is over are deleted `jobs.retentionGraceMs`
 * after they expired — dashboard sessions (absolute or idle expiry, or signed out), sign-in challenges, password
 * reset and SSO links, identity-provider states and human checks — and every project keeps its newest
 * `agent.eventRetention` events (the event log trims the projects this node appends to; this reaches the rest).
 * Mail sent or given up and one-shot jobs done are kept 30 days (their dedupe keys with them: a low-balance
 * notice can come again a month later when no top-up came in between).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

export interface RetentionRules {
  graceMs: number;
  sessionIdleMs: number;
  eventRetention: number;
}

const DONE_KEPT_MS = 30 * 86_400_000;
const EXPIRING_TABLES = ['login_challenges', 'password_resets', 'sso_links', 'oidc_states', 'human_checks'] as const;

/** Deletes what retention allows; returns the rows deleted per table. */
export async function applyRetention(db: Kysely<Database>, nowMs: number, rules: RetentionRules): Promise<Record<string, number>> {
  const cutoff = nowMs - rules.graceMs;
  const deleted: Record<string, number> = {};
  const sessions = await db
    .deleteFrom('dashboard_sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<', cutoff), eb('last_seen_at', '<', cutoff - rules.sessionIdleMs), eb('ended_at', '<', cutoff)]),
    )
    .executeTakeFirst();
  deleted.dashboard_sessions = Number(sessions.numDeletedRows);
  for (const table of EXPIRING_TABLES) {
    const result = await db.deleteFrom(table).where('expires_at', '<', cutoff).executeTakeFirst();
    deleted[table] = Number(result.numDeletedRows);
  }
  const events = await db
    .deleteFrom('project_events')
    .where((eb) =>
      eb(
        'seq',
        '<=',
        eb
          .selectFrom('project_events as newest')
          .select(sql<number>`max(newest.seq) - ${rules.eventRetention}`.as('kept_from'))
          .whereRef('newest.project_id', '=', 'project_events.project_id'),
      ),
    )
    .executeTakeFirst();
  deleted.project_events = Number(events.numDeletedRows);
  const doneBefore = nowMs - DONE_KEPT_MS;
  const mail = await db
    .deleteFrom('mail_outbox')
    .where((eb) => eb.or([eb('sent_at', '<', doneBefore), eb('given_up_at', '<', doneBefore)]))
    .executeTakeFirst();
  deleted.mail_outbox = Number(mail.numDeletedRows);
  const jobs = await db.deleteFrom('scheduled_jobs').where('done_at', '<', doneBefore).executeTakeFirst();
  deleted.scheduled_jobs = Number(jobs.numDeletedRows);
  return deleted;
}
