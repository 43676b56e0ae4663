/** An operator's alias switch holds on its node even while a periodic reload of the stored aliases is in flight. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ModelConfig, ProviderConfig } from '../../src/config/sections/gateway.js';
import type { AliasStore } from '../../src/gateway/routing/alias-store.js';
import { ModelCatalog } from '../../src/gateway/routing/model-catalog.js';
import { ModelRouter } from '../../src/gateway/routing/router.js';

const provider = { id: 'p', kind: 'openai' } as ProviderConfig;
const model = (id: string) => ({ id, provider: 'p', upstreamModel: id }) as ModelConfig;

describe('alias switch during a reload', () => {
  it('a reload that read the store before the switch does not undo it', async () => {
    let releaseLoad: (rows: Map<string, string>) => void = () => undefined;
    const saved = new Map<string, string>();
    const store = {
      load: () => new Promise<Map<string, string>>((resolve) => (releaseLoad = resolve)),
      save: async (alias: string, modelId: string) => {
        saved.set(alias, modelId);
        return 1;
      },
    } as unknown as AliasStore;
    const catalog = new ModelCatalog({
      providers: [provider],
      models: [model('first'), model('second')],
      aliases: { 'power-ai': 'first' },
    });
    const router = new ModelRouter(catalog, store, pino({ level: 'silent' }), () => ({
      stream: async () => [],
      close: async () => undefined,
    }));
    // The reload reads the store (nothing switched yet) and its answer arrives after the switch.
    const starting = router.start();
    await router.setAlias('power-ai', 'second');
    releaseLoad(new Map());
    await starting;
    expect(router.resolve('power-ai')!.model.id).toBe('second');
    // A later reload sees the stored switch.
    expect(saved.get('power-ai')).toBe('second');
    await router.close();
  });
});
