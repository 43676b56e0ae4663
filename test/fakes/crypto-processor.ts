/**
 * A local stand-in of the crypto processor's invoice API (NOWPayments' shape): `POST /v1/invoice` (JSON, header
 * `x-api-key`) answers `{id, order_id, invoice_url, price_amount, price_currency, pay_currency}`, and
 * `GET /v1/payment/?invoiceId=` lists the payments made against an invoice. Tests make payments (`pay`) and
 * sign callbacks (`sign`: HMAC-SHA512 of the key-sorted JSON body with the IPN secret).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeInvoice {
  id: string;
  order_id: string;
  order_description: string;
  price_amount: number;
  price_currency: string;
  pay_currency: string;
  ipn_callback_url: string;
  invoice_url: string;
}

export interface FakeCryptoPayment {
  payment_id: number;
  invoice_id: number;
  payment_status: string;
  pay_address: string;
  price_amount: number;
  price_currency: string;
  pay_amount: number;
  actually_paid: number;
  pay_currency: string;
  order_id: string;
  order_description: string;
  outcome_amount: number;
  outcome_currency: string;
}

export interface CryptoProcessor {
  url: string;
  apiKey: string;
  ipnSecret: string;
  invoices: Map<string, FakeInvoice>;
  payments: Map<string, FakeCryptoPayment[]>;
  requests: { method: string; path: string; authorized: boolean }[];
  /** Payouts asked for (`POST /v1/payout`, NOWPayments' mass-payout shape): one entry per withdrawal. */
  payouts: { id: string; batchId: string; address: string; currency: string; amount: string; uniqueExternalId?: string }[];
  /** Records a payment of an invoice (status and paid amount) and returns it (the IPN body). */
  pay(invoiceId: string, payment: { status: string; payAmount?: number; actuallyPaid?: number }): FakeCryptoPayment;
  sign(body: unknown, secret?: string): string;
  close(): Promise<void>;
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function startCryptoProcessor(options: { apiKey?: string; ipnSecret?: string } = {}): Promise<CryptoProcessor> {
  const apiKey = options.apiKey ?? 'np-test-api-key';
  const ipnSecret = options.ipnSecret ?? 'np-test-ipn-secret';
  const invoices = new Map<string, FakeInvoice>();
  const payments = new Map<string, FakeCryptoPayment[]>();
  const requests: CryptoProcessor['requests'] = [];
  const payouts: CryptoProcessor['payouts'] = [];
  let nextId = 5_000_000_000;
  let baseUrl = '';
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const url = new URL(request.url ?? '/', 'http://fake');
      const authorized = request.headers['x-api-key'] === apiKey;
      requests.push({ method: request.method ?? '', path: url.pathname + url.search, authorized });
      if (!authorized) return send(403, { status: false, statusCode: 403, code: 'INVALID_API_KEY', message: 'Invalid api key' });
      if (request.method === 'POST' && url.pathname === '/v1/invoice') {
        const body = JSON.parse(text) as Omit<FakeInvoice, 'id' | 'invoice_url'>;
        if (typeof body.price_amount !== 'number' || !body.pay_currency || !body.order_id)
          return send(400, { status: false, code: 'INVALID_REQUEST_PARAMS', message: 'bad invoice' });
        const id = String(nextId++);
        const invoice: FakeInvoice = { ...body, id, invoice_url: `${baseUrl}/invoice/${id}` };
        invoices.set(id, invoice);
        return send(200, {
          ...invoice,
          token_id: 'tok',
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
          is_fixed_rate: false,
          is_fee_paid_by_user: false,
        });
      }
      if (request.method === 'POST' && url.pathname === '/v1/payout') {
        const body = JSON.parse(text) as {
          withdrawals?: { address?: string; currency?: string; amount?: number | string; unique_external_id?: string }[];
        };
        const withdrawals = Array.isArray(body.withdrawals) ? body.withdrawals : [];
        if (withdrawals.length === 0 || withdrawals.some((item) => !item.address || !item.currency || !(Number(item.amount) > 0)))
          return send(400, { status: false, code: 'INVALID_REQUEST_PARAMS', message: 'bad withdrawals' });
        const batchId = String(nextId++);
        const made = withdrawals.map((item) => ({
          id: String(nextId++),
          batchId,
          address: item.address!,
          currency: item.currency!,
          amount: String(item.amount),
          uniqueExternalId: item.unique_external_id,
        }));
        payouts.push(...made);
        return send(200, {
          id: batchId,
          withdrawals: made.map((item) => ({
            id: item.id,
            address: item.address,
            currency: item.currency,
            amount: item.amount,
            status: 'WAITING',
          })),
        });
      }
      if (request.method === 'GET' && url.pathname === '/v1/payment/') {
        const invoiceId = url.searchParams.get('invoiceId') ?? '';
        return send(200, {
          data: payments.get(invoiceId) ?? [],
          limit: 10,
          page: 0,
          pagesCount: 1,
          total: (payments.get(invoiceId) ?? []).length,
        });
      }
      send(404, { status: false, message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: baseUrl,
    apiKey,
    ipnSecret,
    invoices,
    payments,
    requests,
    payouts,
    pay(invoiceId, payment) {
      const invoice = invoices.get(invoiceId);
      if (!invoice) throw new Error(`no invoice ${invoiceId}`);
      const list = payments.get(invoiceId) ?? [];
      const payAmount = payment.payAmount ?? 0.00042;
      const existing = list[0];
      const record: FakeCryptoPayment = {
        payment_id: existing?.payment_id ?? nextId++,
        invoice_id: Number(invoiceId),
        payment_status: payment.status,
        pay_address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
        price_amount: invoice.price_amount,
        price_currency: invoice.price_currency,
        pay_amount: payAmount,
        actually_paid: payment.actuallyPaid ?? payAmount,
        pay_currency: invoice.pay_currency,
        order_id: invoice.order_id,
        order_description: invoice.order_description,
        outcome_amount: payAmount,
        outcome_currency: invoice.pay_currency,
      };
      payments.set(invoiceId, [record]);
      return { ...record };
    },
    sign: (body, secret) =>
      createHmac('sha512', secret ?? ipnSecret)
        .update(sortedJson(body))
        .digest('hex'),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
