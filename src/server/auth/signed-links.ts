import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { unauthorized } from '../http/envelope.js';
import type { User, UserRepository } from '../users/user-repository.js';
import { bearerToken } from './authenticate.js';
import type { TokenStore } from './tokens.js';

/** How long a signed link works: long enough to start a download, too short to be worth sharing. */
export const SIGNED_LINK_TTL_SECONDS = 300;
/** The longest a link may be asked for: a video preview keeps fetching ranges while it plays. */
export const MAX_SIGNED_LINK_TTL_SECONDS = 3600;
/** Services whose GET URLs may be signed (never the main API). */
export const SIGNABLE_PREFIXES = ['/download/', '/sharepoint/'] as const;

/**
 * Short-lived signed links for what a browser opens in a frame or a new tab (downloads,
 * previews), which cannot carry the Bearer header. The link names the user and an expiry and is
 * signed with HMAC-SHA256; the long-lived token never appears in a URL. The parameters are
 * appended as _uid, _exp and finally _sig, which signs everything before it.
 */
export class LinkSigner {
  constructor(private readonly secret: Buffer) {}

  sign(userId: number, target: string, now = Date.now(), ttlSeconds = SIGNED_LINK_TTL_SECONDS): { url: string; expiresAt: string } {
    const exp = Math.floor(now / 1000) + ttlSeconds;
    const unsigned = `${target}${target.includes('?') ? '&' : '?'}_uid=${userId}&_exp=${exp}`;
    return { url: `${unsigned}&_sig=${this.mac(unsigned)}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** The user id a request URL was signed for, or undefined if unsigned, forged or expired. */
  verify(url: string, now = Date.now()): number | undefined {
    const at = url.lastIndexOf('&_sig=');
    if (at < 0) return undefined;
    const unsigned = url.slice(0, at);
    const given = Buffer.from(url.slice(at + '&_sig='.length), 'base64url');
    const expected = Buffer.from(this.mac(unsigned), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const params = new URLSearchParams(unsigned.slice(unsigned.indexOf('?') + 1));
    const uid = Number(params.get('_uid'));
    const exp = Number(params.get('_exp'));
    if (!Number.isInteger(uid) || !Number.isInteger(exp) || exp * 1000 < now) return undefined;
    return uid;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }
}

/** The signing secret, made once and kept in the database so that every instance shares it. */
export async function loadLinkSecret(db: Kysely<Database>): Promise<Buffer> {
  await db
    .insertInto('app_secrets')
    .values({ name: 'signed-links', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secrets').select('value').where('name', '=', 'signed-links').executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}

/**
 * A preHandler for the download and shared-files services: a Bearer token (as for the API) or a
 * valid signed link. Sets request.user like authenticate does.
 */
export function authenticateOrSignedLink(tokens: TokenStore, signer: LinkSigner, users: UserRepository) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const token = bearerToken(request);
    let user: User | undefined;
    if (token !== undefined) {
      user = await tokens.resolve(token);
      if (!user) throw unauthorized('Your session has expired or was signed out; please sign in again');
    } else {
      const uid = signer.verify(request.url);
      if (uid === undefined) throw unauthorized('This link is missing its signature, was changed, or has expired; open it again from the app');
      user = await users.findById(uid);
      if (!user) throw unauthorized('This link belongs to a user who no longer exists');
    }
    request.user = user;
  };
}
