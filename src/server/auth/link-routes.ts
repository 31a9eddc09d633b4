import type { FastifyInstance } from 'fastify';
import { badRequest, ok } from '../http/envelope.js';
import { authenticate, currentUser } from './authenticate.js';
import { SIGNABLE_PREFIXES, type LinkSigner } from './signed-links.js';
import type { TokenStore } from './tokens.js';

/**
 * POST /api/system/signed-link {path}: a short-lived signed URL for a download or a file the
 * app opens in a frame or a new tab. Only download and shared-files paths can be signed.
 */
export async function linkRoutes(app: FastifyInstance, deps: { tokens: TokenStore; signer: LinkSigner; clientId: string }): Promise<void> {
  app.post('/system/signed-link', { preHandler: authenticate(deps.tokens, deps.clientId) }, async (request) => {
    const user = currentUser(request);
    const body = request.body as { path?: unknown } | null;
    const target = body?.path;
    if (typeof target !== 'string' || target.length > 4000) throw badRequest('path must be the download or file URL to sign, such as /download/generate_excel?...');
    if (!SIGNABLE_PREFIXES.some((p) => target.startsWith(p)) || target.includes('#') || /[?&]_(sig|uid|exp)=/.test(target)) {
      throw badRequest(`Only ${SIGNABLE_PREFIXES.join(' and ')} URLs can be signed`);
    }
    return ok(deps.signer.sign(user.id, target));
  });
}
