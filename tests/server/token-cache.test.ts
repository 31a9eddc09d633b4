import { describe, expect, it } from 'vitest';
import { ALICE, BOB, dbTargets, useTestServer } from '../helpers/server.js';

/** Sign-ins are cached a few seconds per instance (decision 017), yet a sign-out here ends them at once. */
describe.each(dbTargets())('the token cache on $name', (target) => {
  const s = useTestServer(target);

  const me = (token: string) => s.request('GET', '/api/vtp/issueRecord/list', { token });

  it('ends a sign-out, a new password and a removed user on this instance at once', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    const other = await s.login(ALICE.username, ALICE.password);
    // Used twice, so the second answer came from the cache.
    expect((await me(token)).status).toBe(200);
    expect((await me(token)).status).toBe(200);
    expect((await me(other)).status).toBe(200);
    expect((await s.request('POST', '/api/auth/logout', { token })).status).toBe(200);
    expect((await me(token)).status).toBe(401);
    expect((await me(other)).status).toBe(200);

    await s.app.services.users.setPassword(ALICE.username, 'a-new-password-2');
    expect((await me(other)).status).toBe(401);
    await s.app.services.users.setPassword(ALICE.username, ALICE.password);

    const bob = await s.login(BOB.username, BOB.password);
    expect((await me(bob)).status).toBe(200);
    await s.app.services.users.remove(BOB.username);
    expect((await me(bob)).status).toBe(401);
    await s.app.services.users.add(BOB);
  });

  it('keeps a sign-in ended elsewhere only until the cache lets it go', async () => {
    const token = await s.login(ALICE.username, ALICE.password);
    expect((await me(token)).status).toBe(200);
    // As another instance signing it out would: the row goes, this instance has it cached.
    await s.app.db.kysely
      .deleteFrom('auth_tokens')
      .where('user_id', '=', (await s.app.services.users.findByUsername(ALICE.username))?.id ?? 0)
      .execute();
    expect((await me(token)).status).toBe(200);
    s.app.services.tokens.forgetAll();
    expect((await me(token)).status).toBe(401);
  });
});
