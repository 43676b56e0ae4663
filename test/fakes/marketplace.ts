/**
 * A local stand-in of the marketplace licence provider: `POST /licenses/verify` with
 * `{product_id, license_key}` and `Authorization: Bearer <secret>` answers `{success, purchase: {email,
 * refunded, chargebacked}}`, or 404 `{success: false}` for an unknown licence, 401 for a wrong secret.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Licence {
  email: string;
  productId?: string;
  refunded?: boolean;
}

export interface MarketplaceProvider {
  url: string;
  secret: string;
  licences: Map<string, Licence>;
  /** Verification calls received. */
  calls: { licenseKey: string; authorized: boolean }[];
  close(): Promise<void>;
}

export async function startMarketplace(options: { secret?: string; productId?: string } = {}): Promise<MarketplaceProvider> {
  const secret = options.secret ?? 'marketplace-secret-for-tests';
  const productId = options.productId ?? 'switchyard';
  const licences = new Map<string, Licence>();
  const calls: MarketplaceProvider['calls'] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/licenses/verify') return send(404, { success: false, message: 'not found' });
      const authorized = request.headers.authorization === `Bearer ${secret}`;
      let body: { product_id?: string; license_key?: string } = {};
      try {
        body = JSON.parse(text);
      } catch {
        return send(400, { success: false, message: 'invalid json' });
      }
      calls.push({ licenseKey: String(body.license_key), authorized });
      if (!authorized) return send(401, { success: false, message: 'unauthorized' });
      const licence = licences.get(String(body.license_key));
      if (!licence || (licence.productId ?? productId) !== body.product_id) {
        return send(404, { success: false, message: 'That license does not exist for the provided product.' });
      }
      send(200, {
        success: true,
        uses: 0,
        purchase: { email: licence.email, refunded: licence.refunded === true, chargebacked: false, product_id: productId },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    licences,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
