/**
 * A local stand-in of the ad network's Conversions API (Reddit's shape): `POST
 * /api/v2.0/conversions/events/{account_id}` with `Authorization: Bearer <token>` and `{test_mode, events[]}`.
 * It records every request; `failNext` makes the next one answer 500.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AdNetworkDouble {
  url: string;
  token: string;
  accountId: string;
  received: { path: string; authorization: string | undefined; body: { test_mode: boolean; events: Record<string, unknown>[] } }[];
  failNext: number;
  close(): Promise<void>;
}

export async function startAdNetwork(options: { token?: string; accountId?: string } = {}): Promise<AdNetworkDouble> {
  const token = options.token ?? 'ad-network-test-token';
  const accountId = options.accountId ?? 't2_testaccount';
  const double = { token, accountId, received: [], failNext: 0 } as unknown as AdNetworkDouble;
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== `/api/v2.0/conversions/events/${accountId}`)
        return send(404, { message: 'not found' });
      if (request.headers.authorization !== `Bearer ${token}`) return send(401, { message: 'unauthorized' });
      if (double.failNext > 0) {
        double.failNext -= 1;
        return send(500, { message: 'temporary failure' });
      }
      double.received.push({ path: request.url, authorization: request.headers.authorization, body: JSON.parse(text) });
      send(200, { message: 'Successfully processed conversion events.' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  double.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return double;
}
