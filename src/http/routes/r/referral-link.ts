/**
 * The public share link `/r/{referral_code}`: records the visit, keeps the code for the sign-up and sends the
 * visitor to the sign-up page. A page link outside `/api`, so it gets none of the `/api` scope's handling.
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { AppConfig } from '../../../config/load-config.js';
import type { PromotionServices } from '../../../promotions/index.js';
import type { App } from '../../types.js';
import { referralCookie } from '../shared/referral-cookie.js';
import { VISITOR_COOKIE, visitOf } from '../shared/share-visit.js';

export interface ReferralLinkRouteDeps {
  promotions: Pick<PromotionServices, 'recordShareVisit'>;
  config: Pick<AppConfig, 'publicBaseUrl'>;
}

export async function referralLinkRoutes(app: App, deps: ReferralLinkRouteDeps): Promise<void> {
  app.get(
    '/:referral_code',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary:
          'Share link: records the visit (once per network and browser), keeps the code for sign-up (cookie sy_ref) and redirects to the sign-up page with ?ref=',
        params: Type.Object({ referral_code: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request, reply) => {
      const visit = visitOf(request);
      const cookies: string[] = [];
      if (visit.browser === undefined || !/^[A-Za-z0-9_-]{20,64}$/.test(visit.browser)) {
        visit.browser = randomBytes(24).toString('base64url');
        const secure = deps.config.publicBaseUrl.startsWith('https://') ? '; Secure' : '';
        cookies.push(`${VISITOR_COOKIE}=${visit.browser}; Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000${secure}`);
      }
      const landing = await deps.promotions.recordShareVisit(request.params.referral_code, visit);
      // A known code is kept for the sign-up that may follow (email or identity provider), also past the landing page.
      if (new URL(landing, 'http://this-service.invalid').searchParams.has('ref'))
        cookies.push(referralCookie(request.params.referral_code, deps.config.publicBaseUrl));
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      return reply.redirect(landing, 302);
    },
  );
}
