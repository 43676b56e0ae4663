/** In-process fan-out of committed project events to the subscribers of each project. */
import type { ProjectEvent, ProjectEventListener } from './types.js';

export class EventHub {
  private readonly listeners = new Map<string, Set<ProjectEventListener>>();

  subscribe(projectId: string, listener: ProjectEventListener): () => void {
    let set = this.listeners.get(projectId);
    if (!set) {
      set = new Set();
      this.listeners.set(projectId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(projectId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(projectId);
    };
  }

  /** Delivers events in the given (sequence) order; listeners only enqueue, so this never blocks. */
  publish(events: ProjectEvent[]): void {
    for (const event of events) {
      const set = this.listeners.get(event.projectId);
      if (!set) continue;
      for (const listener of [...set]) listener(event);
    }
  }

  /** Projects with at least one subscriber on this node. */
  projectIds(): string[] {
    return [...this.listeners.keys()];
  }

  subscriberCount(projectId?: string): number {
    if (projectId !== undefined) return this.listeners.get(projectId)?.size ?? 0;
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}
