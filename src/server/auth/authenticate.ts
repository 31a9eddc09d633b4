import type { FastifyRequest, onRequestHookHandler, onRouteHookHandler } from 'fastify';
import { forbidden, unauthorized } from '../http/envelope.js';
import { isWorker, type User } from '../users/user-repository.js';
import type { LinkSigner } from './signed-links.js';
import type { SignedIn, TokenStore } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user; set by the authenticate hook on every protected route. */
    user: User | undefined;
    /** The sign-in the request came through (auth_tokens.link_id); links it signs die with it. */
    linkId: string | undefined;
  }
  interface FastifyContextConfig {
    /** This route is for worker accounts only (the fileAnalyze routes, docs/decisions/021). */
    worker?: boolean;
  }
}

export const bearerToken = (request: FastifyRequest): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * The check of protected routes: a live Bearer token and a clientid header (when sent) that matches
 * ours; where `signer` is given (downloads and shared files), a signed link of a live sign-in
 * instead. Anything else is a 401. A promise only when the sign-in must be read from the database
 * (a promise per request was a measurable share of a small answer).
 */
function authenticate(tokens: TokenStore, clientId: string, signer?: LinkSigner) {
  const signIn = (request: FastifyRequest, signedIn: SignedIn | undefined): void => {
    if (!signedIn) throw unauthorized('Your session has expired or was signed out; please sign in again', '登录已过期或已退出，请重新登录');
    Object.assign(request, signedIn);
  };
  return (request: FastifyRequest): Promise<void> | undefined => {
    const sentClient = request.headers['clientid'];
    if (sentClient !== undefined && sentClient !== clientId)
      throw unauthorized('The client id does not match this server; please sign in again', '客户端标识与本服务器不符，请重新登录');
    const token = bearerToken(request);
    if (token === undefined) {
      if (signer === undefined)
        throw unauthorized('Please sign in: this request needs an Authorization: Bearer token', '请先登录：此请求需要 Authorization: Bearer 令牌');
      return signedLink(tokens, signer, request);
    }
    const remembered = tokens.remembered(token);
    if (remembered !== undefined) {
      signIn(request, remembered);
      return undefined;
    }
    return tokens.resolve(token).then((signedIn) => signIn(request, signedIn));
  };
}

/** A request without a token on a route that takes signed links: its link's sign-in. */
async function signedLink(tokens: TokenStore, signer: LinkSigner, request: FastifyRequest): Promise<void> {
  // Neither a token nor a link: the request is not signed in, which is not a broken link.
  if (!/[?&]_link=/.test(request.url)) {
    throw unauthorized(
      'Please sign in: this request needs an Authorization: Bearer token, or a signed link the app makes for it (POST /api/system/signed-link)',
    );
  }
  const claim = signer.verify(request.method, request.url);
  if (claim === undefined) {
    throw unauthorized('This link is missing its signature, was changed, has expired, or cannot be used for this request; open it again from the app');
  }
  const signedIn = await tokens.resolveLink(claim.linkId);
  if (!signedIn || signedIn.user.id !== claim.userId) throw unauthorized('The sign-in this link was made from has ended; open it again from the app');
  Object.assign(request, signedIn);
}

/** The sign-in of a request that passed authenticate, for signing links that die with it. */
export function currentLinkClaim(request: FastifyRequest): { userId: number; linkId: string } {
  const user = currentUser(request);
  if (request.linkId === undefined) throw unauthorized('Please sign in', '请先登录');
  return { userId: user.id, linkId: request.linkId };
}

export function currentUser(request: FastifyRequest): User {
  if (!request.user) throw unauthorized('Please sign in', '请先登录');
  return request.user;
}

/** An analysed kind's worker routes ('/vtp/issueRecord/fileAnalyze'), testers' submit and record noun ('Issue'), for confineRoles. */
type AnalysisRoutesHint = { fileAnalyze: string; submit: string; noun: string };

/** Keeps worker accounts on the fileAnalyze routes and testers off them: 403 with what to do instead. */
function confineRoles(user: User | undefined, workerRoute: boolean, analysed: readonly AnalysisRoutesHint[]): void {
  if (!user) return;
  const worker = isWorker(user);
  if (worker && !workerRoute) {
    const where = analysed.length === 0 ? 'none here: no kind declares x-kind.analysis' : analysed.map((a) => `/api${a.fileAnalyze}/...`).join(' or ');
    throw forbidden(`This is a worker account: it may call only the video analysis worker routes (${where}). Sign in as a tester for anything else.`);
  }
  if (!worker && workerRoute) {
    const submit = analysed.map((a) => ` Testers submit ${/^[aeiou]/i.test(a.noun) ? 'an' : 'a'} ${a.noun.toLowerCase()} with /api${a.submit}.`).join('');
    throw forbidden(`Only worker accounts may call the fileAnalyze routes (create one with npm run users -- add-worker).${submit}`);
  }
}

function thrownBy(work: () => void): Error | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

/**
 * The sign-in check of one sort of route, as an onRequest hook: authenticate, then the account's
 * role confined (decision 021). A sign-in remembered for a few seconds is checked without a promise.
 */
function signInCheck(guard: ReturnType<typeof authenticate>, workerRoute: boolean, analysed: readonly AnalysisRoutesHint[]): onRequestHookHandler {
  return (request, _reply, done) => {
    const confine = (): void => done(thrownBy(() => confineRoles(request.user, workerRoute, analysed)));
    let reading: Promise<void> | undefined;
    const failed = thrownBy(() => (reading = guard(request)));
    if (failed !== undefined) done(failed);
    else if (reading === undefined) confine();
    else reading.then(confine, (error: unknown) => done(error as Error));
  };
}

/**
 * The one way a route is signed in (decision 075): this onRoute hook, added by each plugin that
 * serves routes, checks every route before any body is read, unless its schema says `security: []`;
 * `config.worker` marks worker routes. Set per route as it is added, not looked up per request
 * (request.routeOptions builds a new object on every read).
 */
export function requireSignIn(deps: {
  tokens: TokenStore;
  clientId: string;
  analysed: readonly AnalysisRoutesHint[];
  signer?: LinkSigner;
}): onRouteHookHandler {
  const guard = authenticate(deps.tokens, deps.clientId, deps.signer);
  const forTesters = signInCheck(guard, false, deps.analysed);
  const forWorkers = signInCheck(guard, true, deps.analysed);
  return (route) => {
    const security = (route.schema as { security?: unknown } | undefined)?.security;
    if (Array.isArray(security) && security.length === 0) return;
    // First of the route's own hooks, so nothing a plugin adds to the route runs before it.
    route.onRequest = [route.config?.worker === true ? forWorkers : forTesters, ...[route.onRequest ?? []].flat()];
  };
}
