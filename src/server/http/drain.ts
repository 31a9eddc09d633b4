import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

// A refused request's body is read and dropped up to these bounds before the answer goes out: a
// client still sending when the server closes gets a reset (EPIPE) instead of the status and message.
const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;
const ENDS = ['end', 'error', 'close'] as const;

async function drainBody(raw: IncomingMessage): Promise<boolean> {
  if (raw.destroyed || Number(raw.headers['content-length'] ?? 0) > DRAIN_MAX_BYTES) return false;
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
      if (seen > DRAIN_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, DRAIN_MAX_MS);
    raw.on('data', onData);
    for (const event of ENDS) raw.once(event, finish);
    raw.resume();
  });
}

/** Every answer given before its request's body was read first drains the body, or else closes the connection after answering. */
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
