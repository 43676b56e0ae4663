/** A visit of a share link as the promotions see it: network address, user agent and the browser's own cookie. */
import type { FastifyRequest } from 'fastify';
import { cookieValue } from '../../../accounts/sessions.js';

/** The browser cookie that makes a share-link visit count once per browser. */
export const VISITOR_COOKIE = 'sy_visitor';

export const visitOf = (request: FastifyRequest) => ({
  address: request.ip,
  userAgent: String(request.headers['user-agent'] ?? ''),
  browser: cookieValue(request.headers.cookie, VISITOR_COOKIE),
});
