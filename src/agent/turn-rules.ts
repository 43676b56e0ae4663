/**
 * The one model, effort and approval rule set of every surface (project turns, direct threads and turns): a
 * model must be in the app-server's catalog (ours: every gateway model and alias), an effort must be one the
 * model the thread runs on supports (the named model, else the thread's), an approval policy one of three.
 * The app-server passes any effort string through, so this is the only check. Failures are 422s with the field.
 */
import type { ManagedAppServer } from '../appserver/supervisor.js';
import type { TurnStartParams } from '../appserver/protocol.js';
import { validationError } from '../kernel/errors.js';
import { REASONING_EFFORTS } from '../kernel/reasoning-effort.js';

export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'] as const;
/** Every effort the app-server knows; what a model that the catalog does not describe is checked against. */
export const KNOWN_EFFORTS = REASONING_EFFORTS;

export type ApprovalPolicy = TurnStartParams['approvalPolicy'];
export type Effort = NonNullable<TurnStartParams['effort']>;

/** What a turn or thread start names; `approvalPolicy` already folded from its aliases. */
export interface ModelSelection {
  model?: string;
  effort?: string;
  approvalPolicy?: string;
}

export interface CheckedSelection {
  model?: string;
  effort?: Effort;
  approvalPolicy?: ApprovalPolicy;
}

export class TurnRules {
  private effortsByModel: Map<string, readonly string[]> | null = null;

  /** The efforts of a model (the app-server's model/list, read once); a model the catalog lacks: every known effort. */
  async efforts(server: ManagedAppServer, model: string | undefined): Promise<readonly string[]> {
    return (model === undefined ? undefined : (await this.catalog(server)).get(model)) ?? KNOWN_EFFORTS;
  }

  /**
   * Checks the selection; `threadModel` is the model the thread runs on when the selection names none.
   * Every failure is reported at once (422, `<loc>.<field>`: `body` on the routes, `params` in the passthrough).
   */
  async check(
    server: ManagedAppServer,
    selection: ModelSelection,
    threadModel: string | undefined,
    loc: 'body' | 'params' = 'body',
  ): Promise<CheckedSelection> {
    const issues = [];
    const checked: CheckedSelection = {};
    if (selection.model !== undefined) {
      if ((await this.catalog(server)).has(selection.model)) checked.model = selection.model;
      else issues.push({ loc: [loc, 'model'], msg: `Unknown model ${selection.model}; see GET /api/models`, type: 'value_error' });
    }
    if (selection.effort !== undefined) {
      const efforts = await this.efforts(server, selection.model ?? threadModel);
      if (efforts.includes(selection.effort)) checked.effort = selection.effort as Effort;
      else issues.push({ loc: [loc, 'effort'], msg: `effort must be one of ${efforts.join(', ')} for this model`, type: 'enum' });
    }
    if (selection.approvalPolicy !== undefined) {
      if ((APPROVAL_POLICIES as readonly string[]).includes(selection.approvalPolicy))
        checked.approvalPolicy = selection.approvalPolicy as ApprovalPolicy;
      else
        issues.push({ loc: [loc, 'approvalPolicy'], msg: `approvalPolicy must be one of ${APPROVAL_POLICIES.join(', ')}`, type: 'enum' });
    }
    if (issues.length > 0) throw validationError(issues);
    return checked;
  }

  /**
   * The customer's own effort and approval defaults (their toolbox) for a turn that names none (a thread keeps
   * what its last turn set, so a changed preference must travel with each turn); an effort the turn's model does
   * not support is left out.
   */
  async customerDefaults(
    server: ManagedAppServer,
    chosen: { reasoningEffort: string; approvalPolicy: string } | undefined,
    selection: ModelSelection,
    threadModel: string | undefined,
  ): Promise<CheckedSelection> {
    if (!chosen) return {};
    const defaults: CheckedSelection = {};
    if (selection.approvalPolicy === undefined) defaults.approvalPolicy = chosen.approvalPolicy as ApprovalPolicy;
    if (selection.effort === undefined && (await this.efforts(server, selection.model ?? threadModel)).includes(chosen.reasoningEffort)) {
      defaults.effort = chosen.reasoningEffort as Effort;
    }
    return defaults;
  }

  private async catalog(server: ManagedAppServer): Promise<Map<string, readonly string[]>> {
    if (this.effortsByModel && this.effortsByModel.size > 0) return this.effortsByModel;
    const listed = await server.call('model/list', { includeHidden: true, limit: 200 });
    this.effortsByModel = new Map(
      listed.data.map((entry) => [entry.model, entry.supportedReasoningEfforts.map((option) => option.reasoningEffort)]),
    );
    return this.effortsByModel;
  }
}
