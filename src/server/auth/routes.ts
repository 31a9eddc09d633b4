import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyRateLimit from '@fastify/rate-limit';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../db/types.js';
import { type ApiError, badRequest, envelope, ok, refused, retryLater, unauthorized } from '../http/envelope.js';
import { message } from '../http/route-validation.js';
import type { User, UserRepository } from '../users/user-repository.js';
import { bearerToken, currentLinkClaim, currentUser } from './authenticate.js';
import { clientKey, databaseRateLimitStore, DeviceCookies, LoginThrottle, type Device, type Refusal as ThrottleRefusal } from './login-throttle.js';
import { HashingBusyError } from '../users/password-hashing.js';
import { admitSignIn, checkSignIn } from './password-check.js';
import { MAX_SIGNED_LINK_TTL_SECONDS, SIGNABLE_PREFIXES, SIGNED_LINK_TTL_SECONDS, signOrExplain, type LinkSigner } from './signed-links.js';
import type { TokenStore } from './tokens.js';

/** What a sign-in is checked with: the sign-in limits are built by authRoutes. */
type AuthDeps = { users: UserRepository; tokens: TokenStore; throttle: LoginThrottle; devices: DeviceCookies; clientId: string };

/** Rethrows e, a busy-hashing refusal (password-check.ts) as a 503 in Chinese too (decision 045). */
const rethrow = (e: unknown): never => {
  throw e instanceof HashingBusyError ? retryLater(503, e.message, 3, '服务器正忙于验证登录，请几秒后再试') : e;
};

const LOGIN_SCHEMA = {
  tags: ['Sign-in'],
  summary: 'Sign in: a Bearer token for the other calls',
  security: [],
  body: {
    type: 'object',
    properties: {
      username: { type: 'string', pattern: '\\S', ...message('must be given as text, not blank', '必须以文本给出，不能为空白') },
      password: { type: 'string', minLength: 1, ...message('must be given as text, not empty', '必须以文本给出，不能为空') },
      clientId: { type: 'string', description: "The server's CLIENT_ID (the app sends it); another is refused" },
      grantType: {
        type: 'string',
        enum: ['password'],
        ...message("must be 'password', the only grant type this server has", "必须是 'password'（此服务器唯一的授权类型）"),
      },
    },
    required: ['username', 'password'],
    additionalProperties: true,
    ...message('must be a JSON object with username and password', '必须是包含 username 和 password 的 JSON 对象'),
  },
  response: {
    200: envelope({ type: 'object', properties: { access_token: { type: 'string' }, expire_in: { type: 'integer' }, client_id: { type: 'string' } } }),
    400: refused('No username or password, or the wrong client id'),
    401: refused('Wrong username or password; or this address is locked for a while after repeated failures'),
    429: refused('Too many sign-ins from this address, or attempts for this username spaced out (Retry-After says when)'),
    503: refused('Too many sign-ins waiting at once (Retry-After says when)'),
  },
};

const LOGOUT_SCHEMA = {
  tags: ['Sign-in'],
  summary: 'Sign out (ends the token and its signed links)',
  security: [],
  response: { 200: envelope({ type: 'null' }), 400: refused() },
};

const GET_INFO_SCHEMA = {
  tags: ['Sign-in'],
  summary: 'The signed-in user: deptName is the project, remark the vehicle',
  response: {
    200: envelope({
      type: 'object',
      additionalProperties: true,
      properties: {
        user: {
          type: 'object',
          additionalProperties: true,
          properties: {
            userId: { type: 'integer' },
            userName: { type: 'string' },
            nickName: { type: 'string' },
            deptName: { type: 'string', description: 'The project' },
            remark: { type: 'string', description: 'The vehicle' },
          },
        },
        roles: { type: 'array', items: { type: 'string' } },
        permissions: { type: 'array', items: { type: 'string' } },
      },
    }),
    401: refused(),
    403: refused('A video analysis worker account: it may call only the fileAnalyze routes'),
  },
};

function perAddressLimit(perMinute: number) {
  return {
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request: { ip: string }) => `login:${clientKey(request.ip)}`,
    errorResponseBuilder: (_request: unknown, { ttl }: { ttl: number }) => {
      const wait = Math.max(1, Math.ceil(ttl / 1000));
      return retryLater(
        429,
        `Too many sign-in attempts from this address. Try again in ${wait} seconds.`,
        ttl / 1000,
        `此地址登录尝试次数过多。请在 ${wait} 秒后再试。`,
      );
    },
  };
}

/** The answer to an attempt the throttle refused before any password was checked (login-throttle.ts). */
function throttled({ reason, retryAfterSeconds: wait }: ThrottleRefusal): ApiError {
  const m = Math.ceil(wait / 60);
  const [en, zh] =
    reason === 'locked'
      ? [`Too many failed sign-in attempts. Try again in ${m} minute${m === 1 ? '' : 's'}.`, `登录失败次数过多。请在 ${Math.max(1, m)} 分钟后再试。`]
      : [`Too many sign-in attempts for this user from many places. Try again in ${wait} seconds.`, `此用户从多处登录尝试次数过多。请在 ${wait} 秒后再试。`];
  return retryLater(429, en, wait, zh);
}

/**
 * The password check of a sign-in: admitted (password-check.ts), then reserved with the throttle (a
 * parallel burst cannot get more checks than the limit), then checked. The user when the password
 * matched, and the valid device cookie the attempt carried.
 */
async function checkAttempt(
  request: FastifyRequest,
  deps: AuthDeps,
  username: string,
  password: string,
  client: string,
): Promise<{ user: User | undefined; device: Device | undefined }> {
  let device: Device | undefined;
  const isTrusted = async () => (device = await deps.devices.check(username, request.headers.cookie)) !== undefined;
  const admission = await admitSignIn(client, username, isTrusted).catch(rethrow);
  try {
    const refusal = await deps.throttle.reserve(username, client, admission.trusted);
    if (refusal !== undefined) {
      request.log.info({ username }, `sign-in refused: ${refusal.reason}`);
      throw throttled(refusal);
    }
    const user = await deps.users.findByUsername(username);
    const valid = await checkSignIn(password, user?.password_hash, admission.trusted);
    return { user: valid ? user : undefined, device };
  } catch (e) {
    // Not checked: the attempt does not count towards this address's lock.
    if (e instanceof HashingBusyError) await deps.throttle.refund(username, client);
    return rethrow(e);
  } finally {
    admission.release();
  }
}

/** A Bearer token for a right username and password, and a new device cookie (login-throttle.ts). */
function signIn(deps: AuthDeps, cookiePath: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { username, password, clientId } = request.body as { username: string; password: string; clientId?: string };
    if (username.length > 100 || password.length > 200) throw unauthorized('Incorrect username or password', '用户名或密码错误');
    if (clientId !== undefined && clientId !== deps.clientId)
      throw badRequest('clientId is not known to this server; check the app configuration', '此服务器不认识该 clientId，请检查应用配置');
    const client = clientKey(request.ip);
    const { user, device } = await checkAttempt(request, deps, username, password, client);
    if (!user) {
      request.log.info({ username }, 'sign-in failed');
      if (device !== undefined) await deps.devices.failed(device);
      throw unauthorized('Incorrect username or password', '用户名或密码错误');
    }
    await deps.throttle.succeeded(username, client);
    const cookie = await deps.devices.issue(username, device, { path: cookiePath, secure: request.protocol === 'https' });
    if (cookie !== undefined) reply.header('set-cookie', cookie);
    const { token, expiresIn } = await deps.tokens.issue(user.id);
    request.log.info({ username }, 'signed in');
    return ok({ access_token: token, expire_in: expiresIn, client_id: deps.clientId });
  };
}

/**
 * Sign-in, sign-out and signed links (5 minutes; up to an hour for a video that keeps seeking). Old
 * sign-in counters are pruned hourly, so rotating usernames cannot grow the table forever.
 */
export async function authRoutes(
  app: FastifyInstance,
  { db, login, signer, ...services }: Omit<AuthDeps, 'throttle' | 'devices'> & { signer: LinkSigner; db: Kysely<Database>; login: Config['login'] },
): Promise<void> {
  const deps = { ...services, throttle: new LoginThrottle(db, login), devices: new DeviceCookies(db, login) };
  const pruning = setInterval(() => {
    deps.throttle.prune().catch((err: unknown) => app.log.error({ err }, 'pruning sign-in counters failed'));
  }, 3600_000);
  pruning.unref();
  app.addHook('onClose', async () => clearInterval(pruning));
  await app.register(fastifyRateLimit, { global: false, store: databaseRateLimitStore(db) });
  app.post(
    '/auth/login',
    { config: { rateLimit: perAddressLimit(login.perAddressPerMinute) }, schema: LOGIN_SCHEMA },
    // The device cookie goes back to this route only.
    signIn(deps, `${app.prefix}/auth/login`),
  );
  // Succeeds without a valid token too, as the original does: signing out must never fail.
  app.post('/auth/logout', { schema: LOGOUT_SCHEMA }, async function signOut(request) {
    const token = bearerToken(request);
    if (token !== undefined) await deps.tokens.revoke(token);
    return ok(null, '退出成功');
  });
  app.get('/system/user/getInfo', { schema: GET_INFO_SCHEMA }, async function getInfo(request) {
    const user = currentUser(request);
    return ok({
      user: { userId: user.id, userName: user.username, nickName: user.nick_name, deptName: user.project, remark: user.vehicle_no },
      roles: [],
      permissions: [],
    });
  });
  app.post('/system/signed-link', { schema: SIGNED_LINK_SCHEMA }, async function signLink(request) {
    const claim = currentLinkClaim(request);
    const { path: target, ttlSeconds } = request.body as { path: string; ttlSeconds?: number | null };
    return ok(signOrExplain(signer, claim, target, Date.now(), ttlSeconds ?? SIGNED_LINK_TTL_SECONDS));
  });
}

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
