import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * A refused request's body is read (and dropped) up to this many bytes and this long before the
 * answer goes out: a client still sending when the server answers and closes gets a reset (EPIPE,
 * 'fetch failed' in Node's fetch) instead of the status and message. Past either bound the answer
 * goes out with Connection: close.
 */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;
/** How a request's body stops arriving: read whole, broken off, or its connection closed. */
const ENDS = ['end', 'error', 'close'] as const;

/** Reads and drops what is left of a request body, up to the bounds; true when it all arrived. */
export async function drainBody(raw: IncomingMessage, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<boolean> {
  if (raw.complete) return true;
  if (raw.destroyed || Number(raw.headers['content-length'] ?? 0) > maxBytes) return false;
  // A body parser (multipart) may still be reading it: take the stream back.
  raw.unpipe();
  return new Promise<boolean>((resolve) => {
    let seen = 0;
    const finish = (): void => {
      clearTimeout(timer);
      raw.off('data', onData);
      for (const event of ENDS) raw.off(event, finish);
      if (!raw.complete) raw.pause();
      resolve(raw.complete);
    };
    const onData = (chunk: Buffer): void => {
      seen += chunk.length;
      if (seen > maxBytes) finish();
    };
    const timer = setTimeout(finish, maxMs);
    raw.on('data', onData);
    for (const event of ENDS) raw.once(event, finish);
    raw.resume();
  });
}

/**
 * Every answer given before its request's body was read (a refusal from any hook, route or the
 * not-found handler, whatever the address) first reads the rest of the body within the bounds, so
 * the client reads the status instead of a reset; past the bounds (or a connection already cut)
 * it closes the connection after answering, rather than read a body nobody will use.
 */
export function installRefusalDrain(app: FastifyInstance): void {
  // A callback hook: it runs on every answer, and almost every request's body is complete by now.
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.method === 'GET' || raw.method === 'HEAD') {
      // Fastify closes after any body parser's refusal; a body read whole leaves nothing to cut off.
      if (raw.complete && reply.statusCode !== 408 && reply.getHeader('connection') === 'close') reply.removeHeader('connection');
      done(null, payload);
      return;
    }
    // A sender cut off for being too slow (408) is not waited for again.
    if (reply.statusCode === 408) {
      reply.header('connection', 'close');
      done(null, payload);
      return;
    }
    void drainBody(raw).then((whole) => {
      if (!whole) reply.header('connection', 'close');
      done(null, payload);
    });
  });
}
