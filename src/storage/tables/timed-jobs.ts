/** Row types of timed jobs and the mail outbox (migration 0028). Timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

export interface ScheduledJobsTable {
  id: Generated<number>;
  /** The job's kind (a registered handler), e.g. `raffle.draw`. */
  kind: string;
  /** Unique within the kind: `schedule` for a recurring job, e.g. the raffle id for a one-shot one. */
  job_key: string;
  payload_json: string;
  /** When it is due next. */
  run_at: number;
  /** 1: the row stays and `run_at` moves to the next occurrence after each run. */
  recurring: number;
  /** Failed runs since the last success. */
  attempts: number;
  /** The node running it while `lease_until` lies ahead. */
  lease_holder: string | null;
  lease_until: number;
  last_error: string | null;
  last_run_at: number | null;
  /** Successful runs. */
  runs: number;
  /** One-shot jobs: when it succeeded (or was given up); null while due or recurring. */
  done_at: number | null;
  created_at: number;
}

export interface MailOutboxTable {
  id: Generated<number>;
  customer_id: number | null;
  /** What the mail is: `alert`, `receipt`, `low_balance`, `digest`, `product_update`. */
  kind: string;
  /** A mail that must go out at most once (a weekly digest, a product update): its key. */
  dedupe_key: string | null;
  to_address: string;
  subject: string;
  body_text: string;
  /** The one-click unsubscribe link (also sent as the List-Unsubscribe header); null for mail one cannot leave. */
  unsubscribe_url: string | null;
  /** The engagement preference the mail depends on (`billing`, …): off by the time of an attempt, it is not sent. */
  preference: string | null;
  attempts: number;
  /** When the next attempt may start (a sender claims the row by moving it ahead). */
  next_attempt_at: number;
  last_error: string | null;
  sent_at: number | null;
  given_up_at: number | null;
  created_at: number;
}

export interface SignInNetworksTable {
  customer_id: number;
  /** Keyed hash of the network (IPv4 /24, IPv6 /48) a dashboard sign-in came from. */
  network_hash: string;
  first_seen_at: number;
}

export interface TimedJobTables {
  scheduled_jobs: ScheduledJobsTable;
  mail_outbox: MailOutboxTable;
  sign_in_networks: SignInNetworksTable;
}
