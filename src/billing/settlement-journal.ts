/**
 * The settlement journal: what a billed call used, written before its answer's last byte leaves, so the answer
 * never waits for the settlement's commit. Each process appends one line per call to its own file
 * (`<dataDir>/settlement-journal/<nodeId>.jsonl`) with a plain write (no fsync: it survives the death of the
 * process, not a power loss, like a hold) and empties the file once it has grown past a few kilobytes and every
 * journaled settlement has committed (lines of settled calls are skipped by the replay, so emptying is only
 * housekeeping and need not cost a truncation per call).
 * When a process is judged gone, the sweep settles its journaled calls from this file and the rates recorded on
 * their holds before it releases what is left; settlement is exactly-once by the call's status, so a line whose
 * settlement did commit changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Insertable } from 'kysely';
import type { UsageCounts } from '../storage/ledger-store/ledger-store.js';
import type { BillingCallsTable } from '../storage/tables/billing.js';

export type { UsageCounts };

export interface JournalEntry {
  callId: number;
  usage: UsageCounts;
  outcome: string;
  nowMs: number;
  /** A call drawn from a credit reservation: the process that drew it and the call's row, written with its settlement. */
  reserved?: { nodeId: string; call: Insertable<BillingCallsTable> };
}

/**
 * A call drew its hold from the process's credit reservation (written before its upstream request): after a crash,
 * the reservation keeps what the calls drawn and not settled hold while the journaled settlements run.
 */
export interface DrawEntry {
  drawn: { callId: number; accountId: number; holdMicros: number };
}

export type JournalLine = JournalEntry | DrawEntry;

export const isDraw = (line: JournalLine): line is DrawEntry => 'drawn' in line;

/** Size past which the file is emptied as soon as nothing journaled is pending. */
const EMPTY_AFTER_BYTES = 64 * 1024;

export class SettlementJournal {
  private fd: number | null = null;
  private pending = 0;
  private bytes = 0;
  /** Draw lines not written yet (they leave with the next settlement's line). */
  private draws = '';
  private readonly file: string;

  constructor(
    private readonly directory: string,
    nodeId: string,
    private readonly logger: Logger,
  ) {
    this.file = path.join(directory, `${nodeId}.jsonl`);
  }

  /**
   * A draw's line waits in memory and leaves with the next settlement's line, in the same write (one write per
   * call): a recovery only needs the draws made before the last settlement it replays, and those are on file.
   */
  recordDraw(entry: DrawEntry): void {
    this.draws += `${JSON.stringify(entry)}\n`;
    this.pending += 1;
  }

  /** Appends the call's usage (after the draws waiting); synchronous, so it is written before the caller sends another byte. */
  record(entry: JournalEntry): void {
    try {
      if (this.fd === null) {
        fs.mkdirSync(this.directory, { recursive: true });
        this.fd = fs.openSync(this.file, 'a');
      }
      const text = `${this.draws}${JSON.stringify(entry)}\n`;
      this.draws = '';
      this.bytes += fs.writeSync(this.fd, text);
      this.pending += 1;
    } catch (error) {
      // Without its line the call is only at risk if this process dies before the settlement commits.
      this.logger.error({ err: error, callId: entry.callId }, 'writing the settlement journal failed');
    }
  }

  /** A journaled line is done with (its settlement, or a draw's, committed or failed for good); a large file is emptied once none is pending. */
  done(): void {
    if (this.pending === 0) return;
    this.pending -= 1;
    if (this.pending === 0 && this.fd !== null && this.bytes > EMPTY_AFTER_BYTES) {
      try {
        fs.ftruncateSync(this.fd, 0);
        this.bytes = 0;
      } catch (error) {
        this.logger.warn({ err: error }, 'emptying the settlement journal failed');
      }
    }
  }

  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
    if (this.pending === 0) fs.rmSync(this.file, { force: true });
  }

  /** The journaled entries of gone processes, read once; `forget` removes their files after they settled. */
  read(nodeIds: string[]): Map<string, JournalLine[]> {
    const found = new Map<string, JournalLine[]>();
    for (const nodeId of nodeIds) {
      let text: string;
      try {
        text = fs.readFileSync(path.join(this.directory, `${nodeId}.jsonl`), 'utf8');
      } catch {
        continue;
      }
      const entries: JournalLine[] = [];
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        try {
          entries.push(JSON.parse(line) as JournalLine);
        } catch {
          // A line cut short by the crash: its call was still answering, its hold is released.
        }
      }
      found.set(nodeId, entries);
    }
    return found;
  }

  forget(nodeIds: string[]): void {
    for (const nodeId of nodeIds) fs.rmSync(path.join(this.directory, `${nodeId}.jsonl`), { force: true });
  }
}
