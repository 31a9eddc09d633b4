import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest, ok, unauthorized } from '../http/envelope.js';
import type { UserRepository } from '../users/user-repository.js';
import { authenticate, bearerToken, currentUser } from './authenticate.js';
import type { LoginThrottle } from './login-throttle.js';
import { decoyHash, verifyPassword } from './passwords.js';
import type { TokenStore } from './tokens.js';

export interface AuthDeps {
  users: UserRepository;
  tokens: TokenStore;
  throttle: LoginThrottle;
  clientId: string;
}

/** /auth/login, /auth/logout and /system/user/getInfo, as the RuoYi-style client calls them. */
export async function authRoutes(app: FastifyInstance, deps: AuthDeps): Promise<void> {
  app.post('/auth/login', async (request) => {
    const body = request.body as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('Send username and password as a JSON object');
    const { username, password, clientId, grantType } = body;
    if (typeof username !== 'string' || username.trim() === '' || typeof password !== 'string' || password === '') {
      throw badRequest('username and password are required');
    }
    if (username.length > 100 || password.length > 200) throw unauthorized('Incorrect username or password');
    if (grantType !== undefined && grantType !== 'password') throw badRequest(`grantType '${String(grantType).slice(0, 30)}' is not supported; use 'password'`);
    if (clientId !== undefined && clientId !== deps.clientId) throw badRequest('clientId is not known to this server; check the app configuration');

    const locked = await deps.throttle.lockedFor(username);
    if (locked > 0) {
      const minutes = Math.ceil(locked / 60);
      throw new ApiError(429, `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
    }
    const user = await deps.users.findByUsername(username);
    const valid = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
    if (!user || !valid) {
      await deps.throttle.recordFailure(username);
      request.log.info({ username }, 'sign-in failed');
      throw unauthorized('Incorrect username or password');
    }
    await deps.throttle.clear(username);
    const { token, expiresIn } = await deps.tokens.issue(user.id);
    request.log.info({ username }, 'signed in');
    return ok({ access_token: token, expire_in: expiresIn, client_id: deps.clientId });
  });

  // Succeeds without a valid token too, as the original does: signing out must never fail.
  app.post('/auth/logout', async (request) => {
    const token = bearerToken(request);
    if (token !== undefined) await deps.tokens.revoke(token);
    return ok(null, '退出成功');
  });

  app.get('/system/user/getInfo', { preHandler: authenticate(deps.tokens, deps.clientId) }, async (request) => {
    const user = currentUser(request);
    return ok({
      user: { userId: user.id, userName: user.username, nickName: user.nick_name, deptName: user.project, remark: user.vehicle_no },
      roles: [],
      permissions: [],
    });
  });

}
