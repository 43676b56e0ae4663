/**
 * A FIFO queue with a fixed capacity (a ring buffer, so shift is O(1)). `push` refuses an item when the queue
 * is full instead of growing: the owner decides what a full queue means (for SSE: the client is too slow).
 */
export class BoundedQueue<T> {
  private readonly items: (T | undefined)[];
  private head = 0;
  private size = 0;
  private longest = 0;
  private waiter: (() => void) | null = null;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.items = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.size;
  }

  /** The largest length the queue ever reached (never above capacity). */
  get lengthMaxSeen(): number {
    return this.longest;
  }

  /** Appends the item; false (and nothing stored) when the queue is full. */
  push(item: T): boolean {
    if (this.size === this.capacity) return false;
    this.items[(this.head + this.size) % this.capacity] = item;
    this.size += 1;
    if (this.size > this.longest) this.longest = this.size;
    this.wake();
    return true;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.size -= 1;
    return item;
  }

  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.size = 0;
  }

  /** Resolves when an item is available (at once if one is), or when `wake()` is called. One waiter at a time. */
  waitForItem(): Promise<void> {
    if (this.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Releases the current waiter (used when the consumer must stop waiting, e.g. on close). */
  wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}
