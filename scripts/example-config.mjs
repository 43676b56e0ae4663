// Prints a full example config file: the built-in defaults with every schema default filled in, so each
// section and field an operator may edit is visible. Needs a build (`npm run build`).
// Usage: node scripts/example-config.mjs > config/switchyard.example.json
import { Value } from '@sinclair/typebox/value';
import { defaultConfigFile } from '../dist/src/config/default-config.js';
import { ConfigFileSchema } from '../dist/src/config/file-schema.js';

const example = Value.Default(ConfigFileSchema, structuredClone(defaultConfigFile));
for (const provider of example.providers) {
  // Secrets are written as ${ENV_NAME}; the example shows the required form (no fallback).
  if (typeof provider.apiKey === 'string') provider.apiKey = provider.apiKey.replace(/:-\}$/, '}');
}
example.releases.cli = { ...example.releases.cli, minimumVersion: '0.135.0' };
process.stdout.write(`${JSON.stringify(example, null, 2)}\n`);
