import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import type { User } from '../users/user-repository.js';

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A live sign-in: its user, and the id that signed links made from it carry (and die with). */
export type SignedIn = { user: User; linkId: string };

const newLinkId = (): string => randomBytes(16).toString('base64url');

/** Bearer tokens: 256 random bits; the database, shared by every instance, keeps only their SHA-256. */
export class TokenStore {
  /**
   * Sign-ins looked up in the last cacheMs, by the token itself (hashing each request cost 4% of a
   * small answer). One revoked elsewhere is accepted here for at most cacheMs (decision 017).
   */
  private readonly recent = new Map<string, { signedIn: SignedIn; until: number }>();
  private static readonly MAX_CACHED = 10_000;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlSeconds: number,
    private readonly cacheMs = 5000,
  ) {}

  async issue(userId: number): Promise<{ token: string; expiresIn: number }> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.db.deleteFrom('auth_tokens').where('expires_at', '<=', now.toISOString()).execute();
    await this.db
      .insertInto('auth_tokens')
      .values({
        token_hash: digest(token),
        link_id: newLinkId(),
        user_id: userId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.ttlSeconds * 1000).toISOString(),
      })
      .execute();
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The sign-in of a token looked up in the last few seconds, without waiting; undefined when it must be read. */
  remembered(token: string): SignedIn | undefined {
    const cached = this.recent.get(token);
    if (cached === undefined) return undefined;
    if (cached.until > Date.now()) return cached.signedIn;
    this.recent.delete(token);
    return undefined;
  }

  /** A token's sign-in read from the database (authenticate asks remembered() first). */
  async resolve(token: string): Promise<SignedIn | undefined> {
    const now = Date.now();
    if (!/^[A-Za-z0-9_-]{20,200}$/.test(token)) return undefined;
    const hash = digest(token);
    const row = await this.live(now).select(['auth_tokens.link_id', 'auth_tokens.expires_at']).where('auth_tokens.token_hash', '=', hash).executeTakeFirst();
    if (!row) return undefined;
    const { link_id, expires_at, ...user } = row;
    if (link_id !== null) {
      const signedIn = { user, linkId: link_id };
      if (this.cacheMs > 0) {
        if (this.recent.size >= TokenStore.MAX_CACHED) this.recent.delete(this.recent.keys().next().value as string);
        this.recent.set(token, { signedIn, until: Math.min(now + this.cacheMs, Date.parse(expires_at)) });
      }
      return signedIn;
    }
    // A sign-in from before links were bound to sign-ins: give it an id the first time it is used.
    const linkId = newLinkId();
    await this.db.updateTable('auth_tokens').set({ link_id: linkId }).where('token_hash', '=', hash).where('link_id', 'is', null).execute();
    const again = await this.db.selectFrom('auth_tokens').select('link_id').where('token_hash', '=', hash).executeTakeFirst();
    return again?.link_id ? { user, linkId: again.link_id } : undefined;
  }

  private live(now: number) {
    const db = this.db.selectFrom('auth_tokens').innerJoin('users', 'users.id', 'auth_tokens.user_id');
    return db.selectAll('users').where('auth_tokens.expires_at', '>', new Date(now).toISOString());
  }

  async resolveLink(linkId: string): Promise<SignedIn | undefined> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(linkId)) return undefined;
    const row = await this.live(Date.now()).where('auth_tokens.link_id', '=', linkId).executeTakeFirst();
    return row ? { user: row, linkId } : undefined;
  }

  /** Drops a user's cached sign-ins (their tokens were deleted: new password, user removed). */
  forgetUser(userId: number): void {
    for (const [token, entry] of this.recent) if (entry.signedIn.user.id === userId) this.recent.delete(token);
  }

  forgetAll(): void {
    this.recent.clear();
  }

  async revoke(token: string): Promise<void> {
    this.recent.delete(token);
    await this.db.deleteFrom('auth_tokens').where('token_hash', '=', digest(token)).execute();
  }
}
