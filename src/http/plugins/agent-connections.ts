/**
 * What the agent's app-servers need of the HTTP server: their sandboxes' model sockets are fed to it like its own
 * listener's connections, and once it listens its real loopback address becomes their model provider's URL.
 */
import type { AddressInfo } from 'node:net';
import type { Services } from '../../services.js';
import type { App } from '../types.js';

function loopbackFor(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address;
}

export function registerAgentConnections(app: App, services: Services): void {
  // The sandboxes' model sockets feed this server like its own listener (the server needs not listen for them).
  services.agent.serveSandboxConnections((socket) => app.server.emit('connection', socket));
  // The app-servers call this service's own /v1 as their model provider; once listening, its real loopback address
  // is the one to use (wired here, once, for every listener: `main.ts` and the tests' `listen()` alike).
  app.addHook('onListen', async () => {
    const address = app.server.address() as AddressInfo | null;
    if (address && typeof address === 'object') {
      const host = address.family === 'IPv6' ? `[${loopbackFor(address.address)}]` : loopbackFor(address.address);
      services.agent.setServiceUrl(`http://${host}:${address.port}`);
    }
  });
}
