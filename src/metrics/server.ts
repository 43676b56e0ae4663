/**
 * The separate metrics listener (`metrics.listen`): `GET /metrics` only, no authentication (bind it to an address
 * only the scraper reaches). Plain `node:http`, so it keeps answering while the main server drains.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceMetrics } from './index.js';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export function parseListen(listen: string): { host: string; port: number } {
  const index = listen.lastIndexOf(':');
  const host = listen.slice(0, index).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(listen.slice(index + 1)) };
}

export async function startMetricsServer(metrics: ServiceMetrics, listen: string): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metrics.render().then(
      (text) =>
        response
          .writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' })
          .end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  const { host, port } = parseListen(listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
