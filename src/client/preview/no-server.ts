// The preview shows screens without the server they normally talk to: nothing it runs may reach
// an API (the deployment's or any other). Should a component ask, it gets a 503 answer at once.

const SERVER_PATHS = /^\/(api|sharepoint|download)(\/|\?|$)/;

/** Calls refused since the page loaded, for the curious (and the preview's test). */
export const refused: string[] = [];

/** Replaces fetch with one that answers 503 for the app's API paths and for other origins. */
export function refuseServerCalls(): void {
  const realFetch = window.fetch.bind(window);
  window.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    if (url.origin !== window.location.origin || SERVER_PATHS.test(url.pathname)) {
      refused.push(url.href);
      console.warn(`Schema preview: not sent, the preview has no server: ${url.href}`);
      const body = JSON.stringify({ code: 503, msg: 'The schema preview has no server: nothing is loaded or saved' });
      return Promise.resolve(new Response(body, { status: 503, headers: { 'content-type': 'application/json' } }));
    }
    return realFetch(input, init);
  };
}
