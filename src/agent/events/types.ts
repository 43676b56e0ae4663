/** The durable per-project event log (append before fan-out; SSE replays from it). */
export interface ProjectEventLog {
  /**
   * Appends one event durably and fans it out to live subscribers; resolves with its sequence number. A project's
   * events take their sequence numbers in the order of the calls, without waiting for earlier calls to resolve.
   */
  append(projectId: string, type: string, data: unknown): Promise<number>;
}

/** One committed event. `dataJson` is the JSON text as stored, so fan-out never re-encodes it per subscriber. */
export interface ProjectEvent {
  projectId: string;
  /** Monotonic per project, starting at 1. */
  seq: number;
  type: string;
  dataJson: string;
  createdAt: number;
}

export type ProjectEventListener = (event: ProjectEvent) => void;

export interface ProjectEventStats {
  /** Live SSE subscribers on this node. */
  subscribers: number;
  /** Subscribers disconnected because their queue was full. */
  overflowDisconnects: number;
  /** The longest any subscriber queue has been (never above agent.subscriberQueueMax). */
  queueLengthMaxSeen: number;
  /** Transactions the log committed (appends are grouped, so usually far fewer than appends). */
  commits: number;
}
