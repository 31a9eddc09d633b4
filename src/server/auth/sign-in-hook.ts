import type { onRequestHookHandler, onRouteHookHandler } from 'fastify';
import { authenticate, confineRoles, type AnalysisRoutesHint } from './authenticate.js';
import type { TokenStore } from './tokens.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route needs no sign-in (the sign-in itself, the API description). */
    public?: boolean;
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

/**
 * One sign-in check for the whole API, before any body is read; routes marked public skip it. As
 * an onRoute hook it is given to each route as the route is added (its config is known then), not
 * looked up per request: request.routeOptions builds a new object on every read. `analysed` names
 * the analysed kinds' routes, where a worker or tester account is sent away from the other's.
 */
export function requireSignIn(tokens: TokenStore, clientId: string, analysed: readonly AnalysisRoutesHint[]): onRouteHookHandler {
  const guard = authenticate(tokens, clientId);
  const forTesters = signInCheck(guard, false, analysed);
  const forWorkers = signInCheck(guard, true, analysed);
  return (route) => {
    if (route.config?.public === true) return;
    // First of the route's own hooks, so nothing a plugin adds to the route runs before it.
    route.onRequest = [route.config?.worker === true ? forWorkers : forTesters, ...[route.onRequest ?? []].flat()];
  };
}
