import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.js';
import type { User } from '../users/user-repository.js';

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Bearer tokens: 256 random bits handed to the client once; only their SHA-256 is stored,
 * so a copy of the database signs nobody in. They live in the database so that every server
 * instance accepts them and a restart signs nobody out.
 */
export class TokenStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ttlSeconds: number,
  ) {}

  async issue(userId: number): Promise<{ token: string; expiresIn: number }> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.db.deleteFrom('auth_tokens').where('expires_at', '<=', now.toISOString()).execute();
    await this.db
      .insertInto('auth_tokens')
      .values({
        token_hash: digest(token),
        user_id: userId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + this.ttlSeconds * 1000).toISOString(),
      })
      .execute();
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The user a token belongs to, or undefined for an unknown, revoked or expired token. */
  async resolve(token: string): Promise<User | undefined> {
    if (!/^[A-Za-z0-9_-]{20,200}$/.test(token)) return undefined;
    return this.db
      .selectFrom('auth_tokens')
      .innerJoin('users', 'users.id', 'auth_tokens.user_id')
      .selectAll('users')
      .where('auth_tokens.token_hash', '=', digest(token))
      .where('auth_tokens.expires_at', '>', new Date().toISOString())
      .executeTakeFirst();
  }

  async revoke(token: string): Promise<void> {
    await this.db.deleteFrom('auth_tokens').where('token_hash', '=', digest(token)).execute();
  }
}
