import type { FastifyInstance } from 'fastify';
import { badRequest, envelope, ok, refused } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import { currentLinkClaim } from './authenticate.js';
import { MAX_SIGNED_LINK_TTL_SECONDS, parseUrl, SIGNABLE_PREFIXES, SIGNED_LINK_TTL_SECONDS, signOrExplain, type LinkSigner } from './signed-links.js';

const SIGNED_LINK_SCHEMA = {
  tags: ['Sign-in'],
  summary: 'A short-lived signed URL for a download or file that opens in a frame or a tab',
  body: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        maxLength: 4000,
        description: `The URL to sign, starting with ${SIGNABLE_PREFIXES.join(' or ')}`,
        ...message(
          'must be the download or file URL to sign, such as /download/generate_excel?...',
          '必须是要签名的下载或文件 URL，如 /download/generate_excel?...',
        ),
      },
      ttlSeconds: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: MAX_SIGNED_LINK_TTL_SECONDS,
        description: `How long the link works (default ${SIGNED_LINK_TTL_SECONDS})`,
        ...message(`must be a whole number of seconds from 1 to ${MAX_SIGNED_LINK_TTL_SECONDS}`, `必须是 1 到 ${MAX_SIGNED_LINK_TTL_SECONDS} 之间的整数秒`),
      },
    },
    required: ['path'],
    additionalProperties: true,
  },
  response: {
    200: envelope({ type: 'object', properties: { url: { type: 'string' }, expiresAt: { type: 'string' } } }),
    400: refused('A path that is not a download or a file, or a ttlSeconds out of range'),
    401: refused(),
    403: refused("A path of another project's files"),
  },
};

/** POST /api/system/signed-link: a signed URL for a download or file (5 minutes; up to an hour for a video that keeps seeking). */
export async function linkRoutes(app: FastifyInstance, deps: { signer: LinkSigner }): Promise<void> {
  app.post('/system/signed-link', { schema: SIGNED_LINK_SCHEMA }, async function signLink(request) {
    const claim = currentLinkClaim(request);
    const { path: target, ttlSeconds } = request.body as { path: string; ttlSeconds?: number | null };
    const ttl = ttlSeconds ?? SIGNED_LINK_TTL_SECONDS;
    // The prefix is checked on the decoded path, so '/download/%2e%2e/api' cannot pass as a download.
    let decodedPath = '';
    try {
      decodedPath = `/${parseUrl(target).segments.join('/')}`;
    } catch {
      // signOrExplain says what is wrong with it.
    }
    if (!target.startsWith('/') || !SIGNABLE_PREFIXES.some((p) => target.startsWith(p) && decodedPath.startsWith(p))) {
      throw badRequest(`Only ${SIGNABLE_PREFIXES.join(' and ')} URLs can be signed`);
    }
    return ok(signOrExplain(deps.signer, claim, target, Date.now(), ttl));
  });
}
