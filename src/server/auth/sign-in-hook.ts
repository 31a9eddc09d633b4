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

/**
 * The sign-in check of one sort of route, as an onRequest hook: authenticate, then the account's
 * role confined (worker accounts reach only the fileAnalyze routes, and only they do;
 * docs/decisions/021). A sign-in remembered for a few seconds is checked without a promise.
 */
function signInCheck(guard: ReturnType<typeof authenticate>, workerRoute: boolean, analysed: readonly AnalysisRoutesHint[]): onRequestHookHandler {
  return (request, _reply, done) => {
    const confine = (): void => {
      try {
        confineRoles(request.user, workerRoute, analysed);
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    };
    let reading: Promise<void> | undefined;
    try {
      reading = guard(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (reading === undefined) confine();
    else reading.then(confine, (error: unknown) => done(error as Error));
  };
}

/** What the sign-in checks are made of; `signer` where signed links are taken too (authenticate). */
export interface SignInDeps {
  tokens: TokenStore;
  clientId: string;
  analysed: readonly AnalysisRoutesHint[];
  signer?: LinkSigner;
}

/**
 * The one way a route is signed in: this onRoute hook, added by each plugin that serves routes
 * (the API, the shared files, the downloads), checks every route before any body is read. A route
 * says itself that it is public by `security: []` in its schema (as the API document shows it),
 * and that it is for worker accounts by `config.worker`. As an onRoute hook it is given to each
 * route as the route is added (its config is known then), not looked up per request:
 * request.routeOptions builds a new object on every read. `analysed` names the analysed kinds'
 * routes, where a worker or tester account is sent away from the other's.
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
