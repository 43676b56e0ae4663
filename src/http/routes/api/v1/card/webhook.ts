/**
 * The card processor's signed payment events, `/api/v1/card/webhook` (public). The signature covers the exact bytes
 * sent, so this plugin reads the body as text through a content-type parser of its own scope; every other route
 * keeps the global JSON parser.
 */
import type { PaymentServices } from '../../../../../billing/payments/index.js';
import type { App } from '../../../../types.js';

export interface CardWebhookRouteDeps {
  payments: Pick<PaymentServices, 'card'>;
}

export async function cardWebhookRoutes(app: App, deps: CardWebhookRouteDeps): Promise<void> {
  // Raw text for the signature; this parser exists only inside this plugin's scope.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.post(
    '/webhook',
    {
      config: { auth: 'public' },
      schema: { tags: ['public'], summary: 'Card-processor payment events (signed: header Stripe-Signature t=…,v1=…)' },
    },
    async (request) => {
      const raw = typeof request.body === 'string' ? request.body : '';
      const result = await deps.payments.card.webhook(raw, request.headers['stripe-signature']);
      return { received: true, event_id: result.eventId, duplicate: result.duplicate };
    },
  );
}
