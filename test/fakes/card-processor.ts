/**
 * A local stand-in of the card processor's API (Stripe's shape), driven by the official `stripe` client pointed
 * at it: `POST /v1/checkout/sessions` (form-encoded, as the client sends it), `GET /v1/checkout/sessions/{id}`,
 * `GET /v1/checkout/sessions?payment_intent=…`, `POST /v1/payment_intents` (off-session charges of a saved
 * card; `declineOffSession` makes them decline) and `GET /v1/payment_intents/{id}` (a paid checkout that asked to
 * save the card has an intent naming the processor customer and payment method). Requests need `Authorization: Bearer <secretKey>`. Tests drive the payment side (`pay`, `refund`) and
 * build signed webhook events (`event`, `signedHeaders`) with the shared endpoint secret.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  payment_intent: string | null;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  mode: string;
  success_url: string | null;
  cancel_url: string | null;
  created: number;
  /** The processor customer (set when paid, if the checkout asked to create one or save the card). */
  customer: string | null;
  customer_creation: string | null;
  /** `payment_intent_data[setup_future_usage]` of the checkout (`off_session` saves the card). */
  setup_future_usage: string | null;
}

export interface FakePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  off_session: boolean;
  status: 'succeeded' | 'processing' | 'requires_payment_method';
  metadata: Record<string, string>;
}

export interface CardProcessor {
  url: string;
  secretKey: string;
  webhookSecret: string;
  sessions: Map<string, FakeSession>;
  intents: Map<string, FakePaymentIntent>;
  /** Every request: method, path and the form fields. */
  requests: { method: string; path: string; form: Record<string, string>; authorized: boolean; idempotencyKey?: string }[];
  /** The next off-session charges decline (card_declined) while set. */
  declineOffSession: boolean;
  /** Status of new off-session charges that do not decline (`processing`: settled later by a webhook). */
  offSessionStatus: 'succeeded' | 'processing';
  /** Marks a session paid (or complete but unpaid for an asynchronous method); returns its payment intent. */
  pay(sessionId: string, options?: { async?: boolean; amountTotal?: number; currency?: string }): FakeSession;
  /** The charge object of a refund (cumulative `amount_refunded` in cents). */
  refundCharge(sessionId: string, amountRefundedCents: number): Record<string, unknown>;
  /** An event envelope around an object. */
  event(
    type: string,
    object: unknown,
    id?: string,
  ): { id: string; object: 'event'; type: string; created: number; data: { object: unknown } };
  /** `Stripe-Signature` header of a raw body signed with `secret` (default the webhook secret) at `timestampSeconds`. */
  signature(rawBody: string, options?: { secret?: string; timestampSeconds?: number }): string;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export function hmacHex(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`).digest('hex');
}

export async function startCardProcessor(options: { secretKey?: string; webhookSecret?: string } = {}): Promise<CardProcessor> {
  const secretKey = options.secretKey ?? 'sk_test_switchyard_fake';
  const webhookSecret = options.webhookSecret ?? 'whsec_test_switchyard_fake';
  const sessions = new Map<string, FakeSession>();
  const intents = new Map<string, FakePaymentIntent>();
  const requests: CardProcessor['requests'] = [];
  let baseUrl = '';
  const processor = { declineOffSession: false, offSessionStatus: 'succeeded' } as CardProcessor;

  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const url = new URL(request.url ?? '/', 'http://fake');
      const form = Object.fromEntries(new URLSearchParams(text));
      const authorized = request.headers.authorization === `Bearer ${secretKey}`;
      const idempotencyKey = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : undefined;
      requests.push({ method: request.method ?? '', path: url.pathname + url.search, form, authorized, idempotencyKey });
      if (!authorized) return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const sessionId = id('cs_test');
        const metadata: Record<string, string> = {};
        for (const [key, value] of Object.entries(form)) {
          const match = /^metadata\[(.+)\]$/.exec(key);
          if (match) metadata[match[1]!] = value;
        }
        const session: FakeSession = {
          id: sessionId,
          object: 'checkout.session',
          url: `${baseUrl}/pay/${sessionId}`,
          status: 'open',
          payment_status: 'unpaid',
          amount_total: Number(form['line_items[0][price_data][unit_amount]']) * Number(form['line_items[0][quantity]'] ?? 1),
          currency: form['line_items[0][price_data][currency]'] ?? 'usd',
          payment_intent: null,
          client_reference_id: form.client_reference_id ?? null,
          metadata,
          mode: form.mode ?? 'payment',
          success_url: form.success_url ?? null,
          cancel_url: form.cancel_url ?? null,
          created: Math.floor(Date.now() / 1000),
          customer: null,
          customer_creation: form.customer_creation ?? null,
          setup_future_usage: form['payment_intent_data[setup_future_usage]'] ?? null,
        };
        sessions.set(sessionId, session);
        return send(200, session);
      }
      if (request.method === 'GET' && url.pathname === '/v1/checkout/sessions') {
        const paymentIntent = url.searchParams.get('payment_intent');
        const data = [...sessions.values()].filter((session) => paymentIntent === null || session.payment_intent === paymentIntent);
        return send(200, { object: 'list', url: '/v1/checkout/sessions', has_more: false, data });
      }
      const sessionMatch = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (request.method === 'GET' && sessionMatch) {
        const session = sessions.get(decodeURIComponent(sessionMatch[1]!));
        if (!session)
          return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such checkout.session' } });
        return send(200, session);
      }
      if (request.method === 'POST' && url.pathname === '/v1/payment_intents') {
        const metadata: Record<string, string> = {};
        for (const [key, value] of Object.entries(form)) {
          const match = /^metadata\[(.+)\]$/.exec(key);
          if (match) metadata[match[1]!] = value;
        }
        if (processor.declineOffSession) {
          return send(402, {
            error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card was declined.' },
          });
        }
        const intent: FakePaymentIntent = {
          id: id('pi'),
          object: 'payment_intent',
          amount: Number(form.amount),
          currency: form.currency ?? 'usd',
          customer: form.customer ?? null,
          payment_method: form.payment_method ?? null,
          off_session: form.off_session === 'true',
          status: processor.offSessionStatus,
          metadata,
        };
        intents.set(intent.id, intent);
        return send(200, intent);
      }
      const intentMatch = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (request.method === 'GET' && intentMatch) {
        const intent = intents.get(decodeURIComponent(intentMatch[1]!));
        if (!intent)
          return send(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent' } });
        return send(200, intent);
      }
      send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${url.pathname})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return Object.assign(processor, {
    url: baseUrl,
    secretKey,
    webhookSecret,
    sessions,
    intents,
    requests,
    pay(sessionId: string, payOptions: { async?: boolean; amountTotal?: number; currency?: string } = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      session.status = 'complete';
      session.payment_status = payOptions.async ? 'unpaid' : 'paid';
      session.payment_intent ??= id('pi');
      const saves = session.customer_creation === 'always' || session.setup_future_usage === 'off_session';
      if (saves) session.customer ??= id('cus');
      if (!intents.has(session.payment_intent)) {
        intents.set(session.payment_intent, {
          id: session.payment_intent,
          object: 'payment_intent',
          amount: session.amount_total,
          currency: session.currency,
          customer: session.customer,
          payment_method: saves ? id('pm') : null,
          off_session: false,
          status: payOptions.async ? 'requires_payment_method' : 'succeeded',
          metadata: { ...session.metadata },
        });
      }
      if (payOptions.amountTotal !== undefined) session.amount_total = payOptions.amountTotal;
      if (payOptions.currency !== undefined) session.currency = payOptions.currency;
      return { ...session };
    },
    refundCharge(sessionId: string, amountRefundedCents: number) {
      const session = sessions.get(sessionId);
      if (!session?.payment_intent) throw new Error(`session ${sessionId} has no payment`);
      return {
        id: `ch_${session.payment_intent.slice(3)}`,
        object: 'charge',
        amount: session.amount_total,
        amount_refunded: amountRefundedCents,
        currency: session.currency,
        payment_intent: session.payment_intent,
        refunded: amountRefundedCents >= session.amount_total,
      };
    },
    event(type: string, object: unknown, eventId?: string) {
      return { id: eventId ?? id('evt'), object: 'event' as const, type, created: Math.floor(Date.now() / 1000), data: { object } };
    },
    signature(rawBody: string, signOptions: { secret?: string; timestampSeconds?: number } = {}) {
      const timestamp = signOptions.timestampSeconds ?? Math.floor(Date.now() / 1000);
      return `t=${timestamp},v1=${hmacHex(signOptions.secret ?? webhookSecret, timestamp, rawBody)}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
