/** The durable per-project event log (append before fan-out; SSE replays from it). */
export interface ProjectEventLog {
  /** Appends one event durably and fans it out to live subscribers; resolves with its sequence number. */
  append(projectId: string, type: string, data: unknown): Promise<number>;
}
