/**
 * The live transcript of a project, folded from its event stream (`GET /api/v1/projects/{id}/events`). Each
 * frame is an app-server notification (`item/started`, `item/agentMessage/delta`, `item/completed`,
 * `turn/started`, `turn/completed`, …) or one of the service's own (`approval/*`, `runtime/*`, `reset`).
 */

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

export interface Entry {
  /** Item id, or a synthetic id for notices. */
  key: string;
  kind: 'user' | 'agent' | 'command' | 'file' | 'reasoning' | 'notice' | 'reset' | 'other';
  text: string;
  detail?: string;
  status?: string;
}

export interface Transcript {
  entries: Entry[];
  lastSeq: number;
  activeTurnId: string | null;
  /** Approvals changed: the view re-reads the pending list. */
  approvalsVersion: number;
}

export const EMPTY: Transcript = { entries: [], lastSeq: 0, activeTurnId: null, approvalsVersion: 0 };

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
      const changes = Array.isArray(item.changes) ? (item.changes as { path?: string }[]) : [];
      return { key, kind: 'file', text: changes.map((change) => change.path ?? '').join(', '), status: String(item.status ?? '') };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? (item.summary as string[]).join('\n') : '';
      return { key, kind: 'reasoning', text: summary };
    }
    default:
      return { key, kind: 'other', text: String(item.type ?? 'item') };
  }
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
      break;
    }
    case 'turn/completed': {
      const turn = data.turn as { id?: string; status?: string; error?: { message?: string } | null } | undefined;
      next.activeTurnId = null;
      next.entries = notice(state, seq, `Turn ${turn?.status ?? 'ended'}${turn?.error?.message ? `: ${turn.error.message}` : ''}`);
      next.approvalsVersion = state.approvalsVersion + 1;
      break;
    }
    case 'error': {
      const error = data.error as { message?: string } | undefined;
      if (error?.message) next.entries = notice(state, seq, `Error: ${error.message}`);
      break;
    }
    case 'approval/requested':
      next.entries = notice(
        state,
        seq,
        `Approval requested: ${String(data.kind ?? '')}${data.command ? ` — ${String(data.command)}` : ''}`,
      );
      next.approvalsVersion = state.approvalsVersion + 1;
      break;
    case 'approval/resolved':
    case 'approval/cancelled':
    case 'approval/expired':
    case 'approval/lost': {
      const decision = typeof data.decision === 'string' ? ` (${data.decision})` : '';
      next.entries = notice(state, seq, `Approval ${type.slice('approval/'.length)}${decision}`);
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
