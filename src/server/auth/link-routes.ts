import type { FastifyInstance } from 'fastify';
import { badRequest, ok } from '../http/envelope.js';
import { currentLinkClaim } from './authenticate.js';
import { MAX_SIGNED_LINK_TTL_SECONDS, parseUrl, SIGNABLE_PREFIXES, SIGNED_LINK_TTL_SECONDS, signOrExplain, type LinkSigner } from './signed-links.js';

/**
 * POST /api/system/signed-link {path, ttlSeconds?}: a short-lived signed URL for a download or a
 * file the app opens in a frame or a new tab (5 minutes; up to an hour for a video that must keep
 * seeking). Only download and shared-files paths can be signed.
 */
export async function linkRoutes(app: FastifyInstance, deps: { signer: LinkSigner }): Promise<void> {
  app.post(
    '/system/signed-link',
    {
      schema: {
        tags: ['Sign-in'],
        summary: 'A short-lived signed URL for a download or file that opens in a frame or a tab',
        body: { type: 'object', properties: { path: { type: 'string' }, ttlSeconds: {} }, additionalProperties: true },
        response: {
          200: {
            type: 'object',
            properties: {
              code: { type: 'integer' },
              msg: { type: 'string' },
              data: { type: 'object', properties: { url: { type: 'string' }, expiresAt: { type: 'string' } } },
            },
            required: ['code', 'msg', 'data'],
          },
          400: { $ref: 'ErrorEnvelope#', description: 'A path that is not a download or a file, or a ttlSeconds out of range' },
          401: { $ref: 'ErrorEnvelope#' },
          403: { $ref: 'ErrorEnvelope#', description: "A path of another project's files" },
        },
      },
    },
    async (request) => {
      const claim = currentLinkClaim(request);
      const body = request.body as { path?: unknown; ttlSeconds?: unknown } | null;
      const target = body?.path;
      const ttl = body?.ttlSeconds ?? SIGNED_LINK_TTL_SECONDS;
      if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_SIGNED_LINK_TTL_SECONDS) {
        throw badRequest(`ttlSeconds must be a whole number of seconds from 1 to ${MAX_SIGNED_LINK_TTL_SECONDS}`);
      }
      if (typeof target !== 'string' || target.length > 4000)
        throw badRequest('path must be the download or file URL to sign, such as /download/generate_excel?...');
      // The prefix is checked on the decoded path, so '/download/%2e%2e/api' cannot pass as a download.
      let decodedPath = '';
      try {
        decodedPath = `/${parseUrl(target).segments.join('/')}`;
      } catch {
        // signOrExplain below says what is wrong with it.
      }
      if (!target.startsWith('/') || !SIGNABLE_PREFIXES.some((p) => target.startsWith(p) && decodedPath.startsWith(p))) {
        throw badRequest(`Only ${SIGNABLE_PREFIXES.join(' and ')} URLs can be signed`);
      }
      return ok(signOrExplain(deps.signer, claim, target, Date.now(), ttl));
    },
  );
}
