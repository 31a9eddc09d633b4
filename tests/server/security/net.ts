import http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A JSON request from a chosen loopback source address (127.0.0.2, 127.0.0.3, ...), so a test can
 * be several clients on one machine, as the server sees them.
 */
export function requestFrom(
  localAddress: string,
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  const url = new URL(path, baseUrl);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress,
        agent: false,
        headers: { ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

export interface DripResult {
  /** Milliseconds from the first byte until the server closed the connection (or answered). */
  closedAfterMs: number;
  /** The status line the server answered with before closing, if any. */
  status: number | undefined;
  bytesSent: number;
}

/**
 * Sends headers, then a body one byte every intervalMs (never finishing), and measures when the
 * server gives up on it. Stops by itself after giveUpMs, so a server that never closes fails the
 * test instead of hanging it.
 */
export function dripRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  intervalMs: number,
  giveUpMs: number,
): Promise<DripResult> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve) => {
    const started = Date.now();
    let bytesSent = 0;
    let status: number | undefined;
    let settled = false;
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: false });
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(stop);
      req.destroy();
      resolve({ closedAfterMs: Date.now() - started, status, bytesSent });
    };
    const timer = setInterval(() => {
      if (req.destroyed || req.writableEnded) return finish();
      req.write('a', (err) => {
        if (err) finish();
      });
      bytesSent++;
    }, intervalMs);
    const stop = setTimeout(finish, giveUpMs);
    req.on('response', (res) => {
      status = res.statusCode;
      res.resume();
      res.on('end', finish);
      res.on('close', finish);
    });
    req.on('error', finish);
    req.on('close', finish);
    req.flushHeaders();
  });
}
