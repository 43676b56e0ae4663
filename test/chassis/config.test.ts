import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ENV_VARIABLES, loadEnv } from '../../src/config/env.js';
import { ConfigFileSchema } from '../../src/config/file-schema.js';
import { loadConfig, loadOrCreateSecret, parseConfigFile } from '../../src/config/load-config.js';
import { tempDir } from '../helpers/databases.js';

function configErrorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('environment variables', () => {
  it('applies the documented defaults', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({ port: 8080, host: '127.0.0.1', dataDir: path.resolve('./data'), logLevel: 'info' });
    expect(env.databaseUrl).toBeUndefined();
    expect(env.staticToken).toBeUndefined();
  });

  it('stops on a bad value with a message naming the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ PORT: 'eighty' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'http://redis' }, 'REDIS_URL'],
      [{ SWITCHYARD_STATIC_TOKEN: 'short' }, 'SWITCHYARD_STATIC_TOKEN'],
      [{ SWITCHYARD_SECRET: 'too-short' }, 'SWITCHYARD_SECRET'],
      [{ SWITCHYARD_LOG_LEVEL: 'loud' }, 'SWITCHYARD_LOG_LEVEL'],
      [{ SWITCHYARD_PUBLIC_URL: 'ftp://example' }, 'SWITCHYARD_PUBLIC_URL'],
      [{ HOST: 'two words' }, 'HOST'],
    ];
    for (const [env, name] of cases) {
      const message = configErrorOf(() => loadEnv(env));
      expect(message, JSON.stringify(env)).toContain(name);
      expect(name in ENV_VARIABLES).toBe(true);
    }
  });

  it('documents every variable in the README', () => {
    const readme = fs.readFileSync(path.resolve('README.md'), 'utf8');
    for (const name of Object.keys(ENV_VARIABLES)) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('config file', () => {
  it('names the path of a bad field', () => {
    const badRegion = configErrorOf(() =>
      parseConfigFile({ regions: [{ id: 'london', name: 'London', apiBaseUrl: 'ftp://london', healthUrl: 'https://london/healthz' }] }, {}),
    );
    expect(badRegion).toContain('regions[0].apiBaseUrl');
    const badRelease = configErrorOf(() => parseConfigFile({ releases: { cli: { version: '1.2' } } }, {}));
    expect(badRelease).toContain('releases.cli.version');
    const unknownSection = configErrorOf(() => parseConfigFile({ regionz: [] }, {}));
    expect(unknownSection).toContain('regionz: unknown field; did you mean "regions"?');
    const badTimeout = configErrorOf(() => parseConfigFile({ server: { regionCheckTimeoutMs: 5 } }, {}));
    expect(badTimeout).toContain('server.regionCheckTimeoutMs');
    const duplicate = configErrorOf(() =>
      parseConfigFile(
        {
          regions: [
            { id: 'london', name: 'London', apiBaseUrl: 'https://a', healthUrl: 'https://a/h' },
            { id: 'london', name: 'London 2', apiBaseUrl: 'https://b', healthUrl: 'https://b/h' },
          ],
        },
        {},
      ),
    );
    expect(duplicate).toContain('regions[1].id');
  });

  it('refuses an unknown field at any depth, names it in one path style and suggests the field meant', () => {
    const provider = { id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1' };
    expect(configErrorOf(() => parseConfigFile({ providers: [{ ...provider, api_key: 'k' }] }, {}))).toBe(
      'config file: providers[0].api_key: unknown field; did you mean "apiKey"?',
    );
    const model = { id: 'm', provider: 'openai', upstreamModel: 'm' };
    expect(configErrorOf(() => parseConfigFile({ providers: [provider], models: [{ ...model, capabilities: { tool: true } }] }, {}))).toBe(
      'config file: models[0].capabilities.tool: unknown field; did you mean "tools"?',
    );
    expect(configErrorOf(() => parseConfigFile({ promotions: { checkin: { enable: true } } }, {}))).toBe(
      'config file: promotions.checkin.enable: unknown field; did you mean "enabled"?',
    );
    expect(configErrorOf(() => parseConfigFile({ accounts: { registraton: 'open' } }, {}))).toBe(
      'config file: accounts.registraton: unknown field; did you mean "registration"?',
    );
    // Nothing close: no guess.
    expect(configErrorOf(() => parseConfigFile({ mail: { colour: 'blue' } }, {}))).toBe('config file: mail.colour: unknown field');
    // Keys of a record (rate-card names, alias names) are the operator's to choose; a bad field inside one is not.
    expect(
      configErrorOf(() =>
        parseConfigFile({ rateCards: { 'heavy-load': { inputMicrosPerMillion: 1, outputMicrosPerMillion: 2, lable: 'x' } } }, {}),
      ),
    ).toBe('config file: rateCards["heavy-load"].lable: unknown field; did you mean "label"?');
    expect(configErrorOf(() => parseConfigFile({ accounts: { registration: 'sometimes' } }, {}))).toContain('accounts.registration: ');
  });

  it('marks every object of the schema as refusing unknown fields', () => {
    const open: string[] = [];
    const visit = (node: Record<string, unknown>, at: string) => {
      if (node.type === 'object' && node.properties !== undefined && node.additionalProperties !== false) open.push(at);
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>))
        visit(child, `${at}.${key}`);
      if (node.items) visit(node.items as Record<string, unknown>, `${at}[]`);
      for (const list of [node.anyOf, node.oneOf]) if (Array.isArray(list)) list.forEach((child, index) => visit(child, `${at}|${index}`));
      for (const child of Object.values((node.patternProperties ?? {}) as Record<string, Record<string, unknown>>)) visit(child, `${at}{}`);
    };
    visit(ConfigFileSchema as unknown as Record<string, unknown>, '');
    expect(open).toEqual([]);
  });

  it('substitutes ${ENV} and ${ENV:-fallback}, and names a missing variable with its path', () => {
    const raw = {
      regions: [{ id: 'london', name: 'London', apiBaseUrl: '${LONDON_URL}', healthUrl: '${LONDON_URL}/healthz' }],
      releases: { cli: { version: '${CLI_VERSION:-1.2.3}' } },
    };
    const parsed = parseConfigFile(raw, { LONDON_URL: 'https://lon.example' });
    expect(parsed.regions[0]).toMatchObject({ apiBaseUrl: 'https://lon.example', healthUrl: 'https://lon.example/healthz' });
    expect(parsed.releases.cli?.version).toBe('1.2.3');
    const missing = configErrorOf(() => parseConfigFile(raw, {}));
    expect(missing).toContain('LONDON_URL');
    expect(missing).toContain('regions[0].apiBaseUrl');
  });

  it('reads SWITCHYARD_CONFIG, and reports an unreadable or invalid file by name', () => {
    const dir = tempDir('switchyard-config-');
    const file = path.join(dir, 'switchyard.json');
    fs.writeFileSync(file, JSON.stringify({ releases: { cli: { version: '9.9.9' } } }));
    const config = loadConfig({ SWITCHYARD_CONFIG: file, SWITCHYARD_DATA_DIR: dir });
    expect(config.releases.cli?.version).toBe('9.9.9');
    expect(Object.isFrozen(config.releases)).toBe(true);
    expect(config.publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ SWITCHYARD_DATA_DIR: dir, HOST: '0.0.0.0', PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ SWITCHYARD_DATA_DIR: dir, HOST: '::1' }).publicBaseUrl).toBe('http://[::1]:8080');
    expect(loadConfig({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_PUBLIC_URL: 'https://api.example.com/' }).publicBaseUrl).toBe(
      'https://api.example.com',
    );
    fs.writeFileSync(file, '{ not json');
    expect(configErrorOf(() => loadConfig({ SWITCHYARD_CONFIG: file, SWITCHYARD_DATA_DIR: dir }))).toContain('SWITCHYARD_CONFIG');
    expect(configErrorOf(() => loadConfig({ SWITCHYARD_CONFIG: path.join(dir, 'missing.json'), SWITCHYARD_DATA_DIR: dir }))).toContain(
      'missing.json',
    );
  });

  it('ships an example config that is valid and holds every section of the schema', () => {
    const example = JSON.parse(fs.readFileSync(path.resolve('config/switchyard.example.json'), 'utf8'));
    const placeholders = new Set([...JSON.stringify(example).matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((match) => match[1]!));
    const env = Object.fromEntries([...placeholders].map((name) => [name, `value-of-${name}`]));
    expect(() => parseConfigFile(example, env)).not.toThrow();
    const sections = Object.keys(ConfigFileSchema.properties).filter((key) => key !== '$schema');
    for (const section of sections) expect(Object.keys(example), section).toContain(section);
  });
});

describe('server secret', () => {
  it('is generated once into the data dir with mode 0600 and reused', () => {
    const dir = tempDir('switchyard-secret-');
    const env = loadEnv({ SWITCHYARD_DATA_DIR: dir });
    const first = loadOrCreateSecret(env);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(path.join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecret(env)).toBe(first);
    const fromEnv = loadEnv({ SWITCHYARD_DATA_DIR: dir, SWITCHYARD_SECRET: 'x'.repeat(40) });
    expect(loadOrCreateSecret(fromEnv)).toBe('x'.repeat(40));
  });
});
