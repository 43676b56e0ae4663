/**
 * Per-customer settings the dashboard edits: preferred edge region, profile name (and whether the name dialog
 * was dismissed), toolbox preferences for the agent and notification preferences. One row per customer,
 * created on first write.
 */
import type { AgentConfig } from '../config/sections/agent.js';
import { AppError, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { Kysely, Transaction } from 'kysely';

export interface ToolboxSettings {
  webSearch?: 'live' | 'cached' | 'disabled';
  reasoningEffort?: string;
  approvalPolicy?: 'never' | 'on-request' | 'untrusted';
}

export interface EngagementPreferences {
  email?: { productUpdates?: boolean; billing?: boolean; keyAlerts?: boolean; inboxDigest?: boolean };
  inApp?: { keyAlerts?: boolean; announcements?: boolean };
}

export type EmailPreference = keyof NonNullable<EngagementPreferences['email']>;
export type InAppPreference = keyof NonNullable<EngagementPreferences['inApp']>;

export const DEFAULT_ENGAGEMENT = {
  email: { productUpdates: false, billing: true, keyAlerts: true, inboxDigest: false },
  inApp: { keyAlerts: true, announcements: true },
};

/** Stricter policies come later: a customer may choose the operator's policy or a stricter one. */
const APPROVAL_ORDER = ['never', 'on-request', 'untrusted'] as const;
const WEB_SEARCH_ORDER = ['disabled', 'cached', 'live'] as const;

export interface Region {
  id: string;
  name: string;
  apiBaseUrl: string;
}

export class AccountSettings {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly regions: () => readonly Region[],
    private readonly agent: () => Pick<AgentConfig, 'webSearch' | 'reasoningEffort' | 'approvalPolicy'>,
  ) {}

  private async row(customerId: number, executor: Kysely<Database> | Transaction<Database> = this.storage.db) {
    return executor.selectFrom('account_settings').selectAll().where('customer_id', '=', customerId).executeTakeFirst();
  }

  private async upsert(
    customerId: number,
    values: Partial<{
      edge_region: string | null;
      first_name: string | null;
      surname: string | null;
      name_dismissed_at: number | null;
      toolbox_json: string;
      engagement_json: string;
    }>,
  ) {
    const now = this.clock.nowMs();
    await this.storage.db
      .insertInto('account_settings')
      .values({ customer_id: customerId, updated_at: now, ...values })
      .onConflict((conflict) => conflict.column('customer_id').doUpdateSet({ ...values, updated_at: now }))
      .execute();
  }

  /** What `/api/v1/me` adds: region, names, whether to show the name dialog. */
  async profile(customerId: number) {
    const row = await this.row(customerId);
    const region = this.regionById(row?.edge_region ?? null) ?? this.regions()[0] ?? null;
    return {
      edge_region: region ? { id: region.id, name: region.name, api_base_url: region.apiBaseUrl } : null,
      first_name: row?.first_name ?? null,
      surname: row?.surname ?? null,
      show_name_dialog: !row?.first_name && !row?.name_dismissed_at,
    };
  }

  /** The API base URL of the region the customer chose (null: none chosen, or it is no longer configured). */
  async edgeBaseUrl(customerId: number): Promise<string | null> {
    const row = await this.row(customerId);
    return this.regionById(row?.edge_region ?? null)?.apiBaseUrl ?? null;
  }

  private regionById(id: string | null): Region | undefined {
    return id === null ? undefined : this.regions().find((region) => region.id === id);
  }

  async setEdgeRegion(customerId: number, regionId: string) {
    const region = this.regions().find(
      (entry) => entry.id === regionId.toLowerCase() || entry.name.toLowerCase() === regionId.toLowerCase(),
    );
    if (!region) {
      throw validationError([
        {
          loc: ['body', 'region'],
          msg: `Unknown region; one of: ${this.regions()
            .map((entry) => entry.id)
            .join(', ')}`,
          type: 'value_error',
        },
      ]);
    }
    await this.upsert(customerId, { edge_region: region.id });
    return { edge_region: { id: region.id, name: region.name, api_base_url: region.apiBaseUrl } };
  }

  async setProfileName(customerId: number, firstName: string, surname: string) {
    const first = firstName.trim();
    const last = surname.trim();
    if (first === '') throw validationError([{ loc: ['body', 'first_name'], msg: 'Must not be blank', type: 'value_error' }]);
    if (last === '') throw validationError([{ loc: ['body', 'surname'], msg: 'Must not be blank', type: 'value_error' }]);
    await this.upsert(customerId, { first_name: first, surname: last });
    await this.storage.db
      .updateTable('customers')
      .set({ name: `${first} ${last}` })
      .where('id', '=', customerId)
      .execute();
    return { first_name: first, surname: last, show_name_dialog: false };
  }

  async dismissProfileName(customerId: number) {
    const now = this.clock.nowMs();
    await this.upsert(customerId, { name_dismissed_at: now });
    return { dismissed_at: new Date(now).toISOString(), show_name_dialog: false };
  }

  // ---- Toolbox ---------------------------------------------------------------------------------------------

  /** The agent defaults for this customer's new turns: the operator's, narrowed by the customer's choices. */
  async defaultsFor(customerId: number): Promise<Required<ToolboxSettings>> {
    const operator = this.agent();
    const row = await this.row(customerId);
    const chosen = row ? (JSON.parse(row.toolbox_json) as ToolboxSettings) : {};
    const allowedWeb = WEB_SEARCH_ORDER.indexOf(operator.webSearch);
    const minApproval = APPROVAL_ORDER.indexOf(operator.approvalPolicy);
    return {
      webSearch:
        chosen.webSearch !== undefined && WEB_SEARCH_ORDER.indexOf(chosen.webSearch) <= allowedWeb ? chosen.webSearch : operator.webSearch,
      reasoningEffort: chosen.reasoningEffort ?? operator.reasoningEffort,
      approvalPolicy:
        chosen.approvalPolicy !== undefined && APPROVAL_ORDER.indexOf(chosen.approvalPolicy) >= minApproval
          ? chosen.approvalPolicy
          : operator.approvalPolicy,
    };
  }

  async toolbox(customerId: number) {
    const row = await this.row(customerId);
    const operator = this.agent();
    return {
      settings: row ? (JSON.parse(row.toolbox_json) as ToolboxSettings) : {},
      effective: await this.defaultsFor(customerId),
      allowed: {
        webSearch: WEB_SEARCH_ORDER.slice(0, WEB_SEARCH_ORDER.indexOf(operator.webSearch) + 1),
        approvalPolicy: APPROVAL_ORDER.slice(APPROVAL_ORDER.indexOf(operator.approvalPolicy)),
      },
    };
  }

  async setToolbox(customerId: number, input: ToolboxSettings) {
    const operator = this.agent();
    if (input.webSearch !== undefined && WEB_SEARCH_ORDER.indexOf(input.webSearch) > WEB_SEARCH_ORDER.indexOf(operator.webSearch)) {
      throw validationError([
        { loc: ['body', 'webSearch'], msg: `The operator allows at most "${operator.webSearch}"`, type: 'value_error' },
      ]);
    }
    if (
      input.approvalPolicy !== undefined &&
      APPROVAL_ORDER.indexOf(input.approvalPolicy) < APPROVAL_ORDER.indexOf(operator.approvalPolicy)
    ) {
      throw validationError([
        { loc: ['body', 'approvalPolicy'], msg: `The operator requires at least "${operator.approvalPolicy}"`, type: 'value_error' },
      ]);
    }
    const row = await this.row(customerId);
    const merged = { ...(row ? (JSON.parse(row.toolbox_json) as ToolboxSettings) : {}), ...input };
    await this.upsert(customerId, { toolbox_json: JSON.stringify(merged) });
    return this.toolbox(customerId);
  }

  // ---- Engagement ----------------------------------------------------------------------------------------

  /** The preferences with defaults filled in; `executor`: read inside the caller's transaction. */
  async engagement(customerId: number, executor?: Kysely<Database> | Transaction<Database>) {
    const row = await this.row(customerId, executor);
    const saved = row ? (JSON.parse(row.engagement_json) as EngagementPreferences) : {};
    return {
      email: { ...DEFAULT_ENGAGEMENT.email, ...saved.email },
      inApp: { ...DEFAULT_ENGAGEMENT.inApp, ...saved.inApp },
    };
  }

  async setEngagement(customerId: number, input: EngagementPreferences) {
    await this.upsert(customerId, { engagement_json: JSON.stringify(input) });
    return this.engagement(customerId);
  }

  /** Whether a mail of this kind may be sent (security mail such as password resets is always sent). */
  async mayEmail(customerId: number, kind: EmailPreference, executor?: Kysely<Database> | Transaction<Database>): Promise<boolean> {
    return (await this.engagement(customerId, executor)).email[kind];
  }

  /** Whether the inbox shows this kind of message (key alerts, the operator's broadcasts). */
  async mayShow(customerId: number, kind: InAppPreference): Promise<boolean> {
    return (await this.engagement(customerId)).inApp[kind];
  }

  /** Customers whose saved preferences turn this mail on (only saved rows can: the defaults of these mails are off or checked by the caller). */
  async customersWithEmail(kind: EmailPreference): Promise<number[]> {
    const rows = await this.storage.db
      .selectFrom('account_settings')
      .select(['customer_id', 'engagement_json'])
      .where('engagement_json', 'like', `%"${kind}":true%`)
      .execute();
    return rows
      .filter((row) => (JSON.parse(row.engagement_json) as EngagementPreferences).email?.[kind] === true)
      .map((row) => Number(row.customer_id));
  }

  /** Sets one mail preference, keeping the others as saved (an unsubscribe link). The customer must exist. */
  async setEmailPreference(customerId: number, kind: EmailPreference, on: boolean): Promise<void> {
    const exists = await this.storage.db.selectFrom('customers').select('id').where('id', '=', customerId).executeTakeFirst();
    assertKnownCustomer(exists);
    const row = await this.row(customerId);
    const saved = row ? (JSON.parse(row.engagement_json) as EngagementPreferences) : {};
    await this.upsert(customerId, { engagement_json: JSON.stringify({ ...saved, email: { ...saved.email, [kind]: on } }) });
  }
}

export function assertKnownCustomer(found: unknown): void {
  if (!found) throw new AppError('NOT_FOUND', 'Customer not found');
}
