/**
 * The live transcript of a project, folded from its event stream (`GET /api/v1/projects/{id}/events`). Each
 * frame is an app-server notification (`item/started`, `item/agentMessage/delta`, `item/completed`,
 * `turn/started`, `turn/completed`, …) or one of the service's own (`approval/*`, `runtime/*`, `reset`).
 */
import { creditProblem } from '../../shared/credit';

/** Event types the view listens for (an EventSource only delivers named events it subscribed to). */
export const EVENT_TYPES = [
  'thread/started',
  'thread/status/changed',
  'turn/started',
  'turn/completed',
  'item/started',
  'item/completed',
  'item/agentMessage/delta',
  'item/commandExecution/outputDelta',
  'item/reasoning/summaryTextDelta',
  'error',
  'approval/requested',
  'approval/resolved',
  'approval/cancelled',
  'approval/expired',
  'approval/lost',
  'runtime/exited',
  'runtime/resumed',
  'reset',
  'overflow',
] as const;

/*
 * The shapes below are the page's own: folded from the SSE frames (app-server notifications), which the OpenAPI
 * document does not describe, so they are not generated types.
 */

/** One file of a file-change item, as its frames carry it. */
export interface FileChange {
  path: string;
  kind: string;
  diff: string;
}

export interface Entry {
  /** Item id, or a synthetic id for notices. */
  key: string;
  kind: 'user' | 'agent' | 'command' | 'file' | 'reasoning' | 'notice' | 'reset' | 'other' | 'billing';
  text: string;
  detail?: string;
  status?: string;
  /** A file change's files with their diffs. */
  changes?: FileChange[];
  /** An `other` item's own label (web search, tool call, …). */
  label?: string;
}

export interface Transcript {
  entries: Entry[];
  lastSeq: number;
  activeTurnId: string | null;
  /** Approvals changed: the view re-reads the pending list. */
  approvalsVersion: number;
  /** The last error shown (its friendly text), so one failure told twice (an error, then the turn's end) shows once. */
  lastError: string | null;
}

export const EMPTY: Transcript = { entries: [], lastSeq: 0, activeTurnId: null, approvalsVersion: 0, lastError: null };

/** Human words for the app-server's item and approval kinds. */
export const ITEM_LABELS: Record<string, string> = {
  commandExecution: 'Command',
  fileChange: 'File change',
  mcpToolCall: 'Tool call',
  dynamicToolCall: 'Tool call',
  collabAgentToolCall: 'Agent call',
  webSearch: 'Web search',
  imageView: 'Image',
  imageGeneration: 'Image',
  enteredReviewMode: 'Review started',
  exitedReviewMode: 'Review finished',
  contextCompaction: 'Context compacted',
  plan: 'Plan',
};

/** Human words for item statuses (the service ends items a turn left open as `interrupted`). */
export const STATUS_LABELS: Record<string, string> = {
  inProgress: 'running',
  completed: 'done',
  failed: 'failed',
  declined: 'declined',
  interrupted: 'interrupted',
};

const CLOSED_LABELS: Record<string, string> = {
  'approval/cancelled': 'cancelled (the turn ended)',
  'approval/expired': 'expired (declined)',
  'approval/lost': 'lost (the agent restarted)',
};

export const DECISION_LABELS: Record<string, string> = {
  accept: 'accepted',
  acceptForSession: 'accepted for this session',
  decline: 'declined',
  cancel: 'cancelled',
};

/** A label for a kind the service sends as an identifier: known ones by the table, others split into words. */
export function humanize(value: string, labels: Record<string, string> = ITEM_LABELS): string {
  if (labels[value]) return labels[value]!;
  const words = value.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * An error from the model call as the customer should read it: an empty wallet (402) or a limit (429) says what
 * happened and where to act; any other keeps its text without the internal URL Codex appends.
 */
export function friendlyError(message: string): { kind: 'billing' | 'notice'; text: string } {
  if (creditProblem(message) || /payment required|insufficient (?:funds|balance)/i.test(message)) {
    return { kind: 'billing', text: 'Your wallet has no credit left for this turn, so the agent could not reach the model.' };
  }
  if (/\b429\b|too many requests|rate limit|spending limit|limit (?:reached|exceeded)/i.test(message)) {
    return { kind: 'billing', text: 'A spending or rate limit stopped the model call. Wait a moment, or change your limits.' };
  }
  return { kind: 'notice', text: `Error: ${message.replace(/,?\s*url:\s*\S+/gi, '').trim()}` };
}

type Item = Record<string, unknown> & { id?: string; type?: string };

function textOfUser(item: Item): string {
  const content = Array.isArray(item.content) ? (item.content as { type?: string; text?: string }[]) : [];
  return content
    .map((part) => (part.type === 'text' ? (part.text ?? '') : part.type === 'image' || part.type === 'localImage' ? '[image]' : ''))
    .join('');
}

function entryOf(item: Item): Entry {
  const key = String(item.id ?? Math.random());
  switch (item.type) {
    case 'userMessage':
      return { key, kind: 'user', text: textOfUser(item) };
    case 'agentMessage':
      return { key, kind: 'agent', text: String(item.text ?? '') };
    case 'commandExecution':
      return {
        key,
        kind: 'command',
        text: String(item.command ?? ''),
        detail: String(item.aggregatedOutput ?? ''),
        status: String(item.status ?? ''),
      };
    case 'fileChange': {
      const changes = (
        Array.isArray(item.changes) ? (item.changes as { path?: string; kind?: { type?: string }; diff?: string }[]) : []
      ).map((change) => ({ path: change.path ?? '', kind: change.kind?.type ?? 'update', diff: change.diff ?? '' }));
      return { key, kind: 'file', text: changes.map((change) => change.path).join(', '), status: String(item.status ?? ''), changes };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? (item.summary as string[]).join('\n') : '';
      return { key, kind: 'reasoning', text: summary };
    }
    default:
      return {
        key,
        kind: 'other',
        text: '',
        label: humanize(String(item.type ?? 'item')),
        status: item.status ? String(item.status) : undefined,
      };
  }
}

/** The turn ended: an entry still shown running ends as the turn did (the service says so too; this covers a gap). */
function settle(entries: Entry[], turnStatus: string | undefined): Entry[] {
  const status = turnStatus === 'interrupted' ? 'interrupted' : 'failed';
  return entries.map((entry) => (entry.status === 'inProgress' ? { ...entry, status } : entry));
}

function errorNotice(state: Transcript, next: Transcript, seq: number, message: string): void {
  const friendly = friendlyError(message);
  if (friendly.text === state.lastError) return;
  next.lastError = friendly.text;
  next.entries = notice({ ...state, entries: next.entries }, seq, friendly.text, friendly.kind);
}

function upsert(entries: Entry[], entry: Entry): Entry[] {
  const index = entries.findIndex((candidate) => candidate.key === entry.key);
  if (index < 0) return [...entries, entry];
  const next = entries.slice();
  // Keep streamed text when the completed item carries none (reasoning without a summary, say).
  next[index] = { ...entry, text: entry.text || next[index]!.text, detail: entry.detail || next[index]!.detail };
  return next;
}

function append(entries: Entry[], key: string, kind: Entry['kind'], field: 'text' | 'detail', delta: string): Entry[] {
  const index = entries.findIndex((candidate) => candidate.key === key);
  if (index < 0) return [...entries, { key, kind, text: field === 'text' ? delta : '', detail: field === 'detail' ? delta : undefined }];
  const next = entries.slice();
  const current = next[index]!;
  next[index] = { ...current, [field]: (current[field] ?? '') + delta };
  return next;
}

export function commandText(command: unknown): string {
  return Array.isArray(command) ? command.join(' ') : String(command ?? '');
}

function notice(state: Transcript, seq: number, text: string, kind: Entry['kind'] = 'notice'): Entry[] {
  return [...state.entries, { key: `n${seq}-${state.entries.length}`, kind, text }];
}

/** Folds one frame into the transcript. */
export function applyEvent(state: Transcript, type: string, seq: number, data: Record<string, unknown>): Transcript {
  const next: Transcript = { ...state, lastSeq: Number.isFinite(seq) && seq > state.lastSeq ? seq : state.lastSeq };
  switch (type) {
    case 'item/started':
    case 'item/completed':
      if (data.item && typeof data.item === 'object') next.entries = upsert(state.entries, entryOf(data.item as Item));
      break;
    case 'item/agentMessage/delta':
      next.entries = append(state.entries, String(data.itemId), 'agent', 'text', String(data.delta ?? ''));
      break;
    case 'item/reasoning/summaryTextDelta':
      next.entries = append(state.entries, String(data.itemId), 'reasoning', 'text', String(data.delta ?? ''));
      break;
    case 'item/commandExecution/outputDelta':
      next.entries = append(state.entries, String(data.itemId), 'command', 'detail', String(data.delta ?? ''));
      break;
    case 'turn/started': {
      const turn = data.turn as { id?: string } | undefined;
      next.activeTurnId = turn?.id ?? null;
      next.lastError = null;
      break;
    }
    case 'turn/completed': {
      const turn = data.turn as { id?: string; status?: string; error?: { message?: string } | null } | undefined;
      next.activeTurnId = null;
      next.entries = notice({ ...state, entries: settle(state.entries, turn?.status) }, seq, `Turn ${turn?.status ?? 'ended'}`);
      if (turn?.error?.message) errorNotice(state, next, seq, turn.error.message);
      next.approvalsVersion = state.approvalsVersion + 1;
      break;
    }
    case 'error': {
      const error = data.error as { message?: string } | undefined;
      // A failure Codex retries on its own is not the end of the turn: only the final one is shown.
      if (error?.message && data.willRetry !== true) errorNotice(state, next, seq, error.message);
      break;
    }
    case 'approval/requested':
      next.entries = notice(
        state,
        seq,
        `Approval requested: ${data.kind === 'fileChange' ? 'change files' : 'run a command'}${data.command ? ` — ${commandText(data.command)}` : ''}`,
      );
      next.approvalsVersion = state.approvalsVersion + 1;
      break;
    case 'approval/resolved':
    case 'approval/cancelled':
    case 'approval/expired':
    case 'approval/lost': {
      const outcome =
        type === 'approval/resolved' && typeof data.decision === 'string'
          ? humanize(data.decision, DECISION_LABELS)
          : (CLOSED_LABELS[type] ?? 'closed');
      next.entries = notice(state, seq, `Approval ${outcome}`);
      next.approvalsVersion = state.approvalsVersion + 1;
      break;
    }
    case 'runtime/exited':
      next.activeTurnId = null;
      next.entries = notice(state, seq, 'The agent runtime stopped.');
      break;
    case 'runtime/resumed':
      next.entries = notice(state, seq, 'The agent runtime is back.');
      break;
    case 'reset':
      // The cursor fell out of retention: what came before is gone, the stream continues from the oldest kept.
      return {
        ...EMPTY,
        lastSeq: next.lastSeq,
        approvalsVersion: state.approvalsVersion + 1,
        entries: [
          {
            key: `reset-${seq}-${state.entries.length}`,
            kind: 'reset',
            text: `Earlier events are no longer kept; the transcript restarts at event ${String(data.oldest_seq ?? '?')}.`,
          },
        ],
      };
    default:
      break;
  }
  return next;
}
