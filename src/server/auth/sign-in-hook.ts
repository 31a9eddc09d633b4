import type { onRequestHookHandler, onRouteHookHandler } from 'fastify';
import { authenticate, confineRoles, type AnalysisRoutesHint } from './authenticate.js';
import type { LinkSigner } from './signed-links.js';
import type { TokenStore } from './tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route is for worker accounts only (the fileAnalyze routes, docs/decisions/021). */
    worker?: boolean;
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

interface SignInDeps {
  tokens: TokenStore;
  clientId: string;
  analysed: readonly AnalysisRoutesHint[];
  signer?: LinkSigner;
}

/**
 * The one way a route is signed in (decision 075): this onRoute hook, added by each plugin that
 * serves routes, checks every route before any body is read, unless its schema says `security: []`;
 * `config.worker` marks worker routes. Set per route as it is added, not looked up per request
 * (request.routeOptions builds a new object on every read).
 */
export function requireSignIn({ tokens, clientId, analysed, signer }: SignInDeps): onRouteHookHandler {
  const guard = authenticate(tokens, clientId, signer);
  const forTesters = signInCheck(guard, false, analysed);
  const forWorkers = signInCheck(guard, true, analysed);
  return (route) => {
    const security = (route.schema as { security?: unknown } | undefined)?.security;
    if (Array.isArray(security) && security.length === 0) return;
    // First of the route's own hooks, so nothing a plugin adds to the route runs before it.
    route.onRequest = [route.config?.worker === true ? forWorkers : forTesters, ...[route.onRequest ?? []].flat()];
  };
}
