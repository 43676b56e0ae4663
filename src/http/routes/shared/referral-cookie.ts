/**
 * The referral code a visitor brought: `/r/{code}` keeps it in a cookie, and a sign-up (email or identity
 * provider) takes the code it was given explicitly, else the cookie's. Malformed values are ignored.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieValue } from '../../../accounts/sessions.js';
import { REFERRAL_CODE_PATTERN } from '../../../promotions/referral.js';

export const REFERRAL_COOKIE = 'sy_ref';
const REFERRAL_COOKIE_DAYS = 30;

/** The code given in the request, else the one the share link left in the cookie (undefined: none). */
export function referralCodeFrom(request: FastifyRequest, given: string | undefined): string | undefined {
  const explicit = given?.trim();
  if (explicit) return explicit;
  const kept = cookieValue(request.headers.cookie, REFERRAL_COOKIE);
  return kept !== undefined && REFERRAL_CODE_PATTERN.test(kept) ? kept : undefined;
}

function attributes(publicBaseUrl: string, maxAgeSeconds: number): string {
  const secure = publicBaseUrl.startsWith('https://') ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

export function referralCookie(code: string, publicBaseUrl: string): string {
  return `${REFERRAL_COOKIE}=${code}; ${attributes(publicBaseUrl, REFERRAL_COOKIE_DAYS * 86_400)}`;
}

/** Clears the kept code once a sign-up used it. */
export function clearReferralCookie(reply: FastifyReply, publicBaseUrl: string): void {
  reply.header('set-cookie', `${REFERRAL_COOKIE}=; ${attributes(publicBaseUrl, 0)}`);
}
