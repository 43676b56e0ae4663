/** The app-server's model catalog (ours: every gateway model and alias) with each model's reasoning efforts. */
import type { ManagedAppServer } from '../appserver/supervisor.js';
import { KNOWN_EFFORTS } from './turn-input.js';

export class ModelOptions {
  private readonly effortsByModel = new Map<string, readonly string[]>();

  async known(server: ManagedAppServer, model: string): Promise<boolean> {
    await this.load(server);
    return this.effortsByModel.has(model);
  }

  /** Efforts the model supports; the app-server passes any string through, so this is the only check. */
  async efforts(server: ManagedAppServer, model: string): Promise<readonly string[]> {
    await this.load(server);
    return this.effortsByModel.get(model) ?? KNOWN_EFFORTS;
  }

  private async load(server: ManagedAppServer): Promise<void> {
    if (this.effortsByModel.size > 0) return;
    const listed = await server.call('model/list', { includeHidden: true, limit: 200 });
    for (const entry of listed.data) {
      this.effortsByModel.set(entry.model, entry.supportedReasoningEfforts.map((option) => option.reasoningEffort));
    }
  }
}
