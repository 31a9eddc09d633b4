import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import { badRequest } from '../http/envelope.js';

/** How long a signed link works: long enough to start a download, too short to be worth sharing. */
export const SIGNED_LINK_TTL_SECONDS = 300;
/** The longest a link may be asked for: a video preview keeps fetching ranges while it plays. */
export const MAX_SIGNED_LINK_TTL_SECONDS = 3600;
/** Services whose GET URLs may be signed (never the main API). */
export const SIGNABLE_PREFIXES = ['/download/', '/sharepoint/'] as const;
/** The one query parameter a signed link adds. Every name starting with '_' is reserved for it. */
export const LINK_PARAM = '_link';
/** A link is good for reading only: what opens in a frame or a tab never writes. */
const LINK_METHODS = new Set(['GET', 'HEAD']);
const VERSION = 'v2';

/** A URL as the router and query parser see it: decoded segments and query pairs, in order. */
type CanonicalUrl = { segments: string[]; pairs: [string, string][] };

class LinkFormError extends Error {}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new LinkFormError(`${what} has a broken %-escape or is not UTF-8`);
  }
}

/**
 * Splits a path-and-query as the server reads it, refusing what could be read two ways (dot or
 * empty segments, encoded slashes, NUL, a fragment): a signature over the decoded form then holds
 * whatever encoding a proxy or browser picks.
 */
function parseUrl(raw: string): CanonicalUrl {
  if (raw.includes('#')) throw new LinkFormError('a link cannot contain #');
  const q = raw.indexOf('?');
  const rawPath = q < 0 ? raw : raw.slice(0, q);
  const rawQuery = q < 0 ? '' : raw.slice(q + 1);
  if (!rawPath.startsWith('/')) throw new LinkFormError('a link must be a path on this server, starting with /');
  const segments = Array.from(rawPath.slice(1).split('/'), (s) => decode(s, 'the path'));
  for (const [i, s] of segments.entries()) {
    if (s === '.' || s === '..' || s.includes('/') || s.includes('\\') || s.includes('\0') || (s === '' && i < segments.length - 1)) {
      throw new LinkFormError('the path has an empty, dot or encoded-slash segment');
    }
  }
  const pairs: [string, string][] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const key = decode((eq < 0 ? piece : piece.slice(0, eq)).replace(/\+/g, ' '), 'a query parameter name');
    const value = decode((eq < 0 ? '' : piece.slice(eq + 1)).replace(/\+/g, ' '), `the query parameter '${key}'`);
    if (key.includes('\0') || value.includes('\0')) throw new LinkFormError('the query contains a NUL character');
    pairs.push([key, value]);
  }
  return { segments, pairs };
}

/** The text an HMAC covers: unambiguous (JSON), decoded, parameters sorted. */
function canonicalText(userLink: string, userId: number, exp: number, url: CanonicalUrl): string {
  const sorted = [...url.pairs].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return JSON.stringify([VERSION, 'GET', userId, userLink, exp, url.segments, sorted]);
}

/** Who a valid link is for, and the sign-in (auth_tokens.link_id) it was made from and dies with. */
type LinkClaim = { userId: number; linkId: string };

/**
 * Short-lived signed links for what a browser opens in a frame or tab, which cannot carry the
 * Bearer header. One parameter, _link, carries the user, sign-in and expiry; its HMAC covers those
 * and the canonical path and query, so nothing can be added, changed or re-encoded.
 */
export class LinkSigner {
  constructor(private readonly secret: Buffer) {}

  /** Signs a target path; throws LinkFormError when the target could be read more than one way. */
  sign(claim: LinkClaim, target: string, now = Date.now(), ttlSeconds = SIGNED_LINK_TTL_SECONDS): { url: string; expiresAt: string } {
    const url = parseUrl(target);
    const names = url.pairs.map(([k]) => k);
    const reserved = names.find((k) => k.startsWith('_'));
    if (reserved !== undefined) throw new LinkFormError(`the query parameter name '${reserved.slice(0, 40)}' is reserved (names starting with _)`);
    const dup = names.find((k, i) => names.indexOf(k) !== i);
    if (dup !== undefined) throw new LinkFormError(`the query parameter '${dup.slice(0, 40)}' is given more than once`);
    const exp = Math.floor(now / 1000) + ttlSeconds;
    const payload = Buffer.from(JSON.stringify({ u: claim.userId, s: claim.linkId, e: exp })).toString('base64url');
    const mac = this.mac(canonicalText(claim.linkId, claim.userId, exp, url));
    const sep = target.includes('?') ? (target.endsWith('?') || target.endsWith('&') ? '' : '&') : '?';
    return { url: `${target}${sep}${LINK_PARAM}=${payload}.${mac}`, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** The claim of a request's URL, or undefined when it is unsigned, changed, expired or not a GET/HEAD. */
  verify(method: string, rawUrl: string, now = Date.now()): LinkClaim | undefined {
    if (!LINK_METHODS.has(method.toUpperCase())) return undefined;
    let url: CanonicalUrl;
    try {
      url = parseUrl(rawUrl);
    } catch {
      return undefined;
    }
    const links = url.pairs.filter(([k]) => k === LINK_PARAM);
    if (links.length !== 1) return undefined;
    const [payload, given] = (links[0] as [string, string])[1].split('.');
    if (payload === undefined || given === undefined) return undefined;
    let claim: { u?: unknown; s?: unknown; e?: unknown } | null;
    try {
      claim = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claim;
    } catch {
      return undefined;
    }
    const { u, s, e } = claim ?? {};
    if (!Number.isSafeInteger(u) || typeof s !== 'string' || !Number.isSafeInteger(e)) return undefined;
    const rest = { segments: url.segments, pairs: url.pairs.filter(([k]) => k !== LINK_PARAM) };
    const expected = Buffer.from(this.mac(canonicalText(s, u as number, e as number, rest)), 'base64url');
    const actual = Buffer.from(given, 'base64url');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
    if ((e as number) * 1000 < now) return undefined;
    return { userId: u as number, linkId: s };
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

/** Signs a download or file URL for POST /api/system/signed-link; a 400 that says why when it cannot be signed. */
export function signOrExplain(signer: LinkSigner, claim: LinkClaim, target: string, now: number, ttl?: number): { url: string; expiresAt: string } {
  // The prefix is checked on the decoded path too, so '/download/%2e%2e/api' cannot pass as a download.
  let decodedPath = '';
  try {
    decodedPath = `/${parseUrl(target).segments.join('/')}`;
  } catch {
    // Not a path this server reads one way: refused below.
  }
  if (!SIGNABLE_PREFIXES.some((p) => target.startsWith(p) && decodedPath.startsWith(p))) {
    throw badRequest(`Only ${SIGNABLE_PREFIXES.join(' and ')} URLs can be signed`);
  }
  try {
    return signer.sign(claim, target, now, ttl);
  } catch (e) {
    if (e instanceof LinkFormError) throw badRequest(`This URL cannot be signed: ${e.message}`);
    throw e;
  }
}
