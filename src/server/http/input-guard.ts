import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { badRequest } from './envelope.js';

/** Deeper JSON than any record or call needs; deeper input only serves to exhaust the stack. */
const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The deepest nesting of arrays and objects in a JSON text, counted without parsing (no recursion). */
function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAt) return max;
      }
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** A UTF-16 surrogate without its partner (JSON "\ud800"): not text; SQLite stores it as non-UTF-8, jsonb refuses it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'contains a NUL character; remove it';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (such as \\ud800), which is not a character; send well-formed Unicode text';
  return undefined;
}

const keyName = (key: string): string => key.replace(/\0/g, '\\0').replace(new RegExp(LONE_SURROGATE.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16)}`);

/** The first string (value or key) of a parsed body holding NUL or a lone surrogate: its path and the problem. */
function findBadText(value: unknown): { at: string; problem: string } | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem !== undefined) return { at: at || '(the body)', problem };
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${at}[${i}]`]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const problem = textProblem(k);
        if (problem !== undefined) return { at: `${at}${at ? '.' : ''}${keyName(k)}`, problem: `(a field name) ${problem}` };
        stack.push([item, at ? `${at}.${k}` : k]);
      }
    }
  }
  return undefined;
}

/** Checks that every %-escape of a URL decodes to UTF-8 and that none is NUL; throws a 400 otherwise. */
export function checkUrl(url: string): void {
  // Most addresses have no escape at all: one scan, and nothing to decode.
  const escaped = url.includes('%');
  if (!escaped && !url.includes('\0')) return;
  if (url.includes('\0') || (escaped && /%00/i.test(url))) throw badRequest('The address contains a NUL character (%00); remove it');
  // Every escape decodes when the whole address does; a broken one is looked for piece by piece, to name it.
  try {
    decodeURIComponent(url);
    return;
  } catch {
    // found below
  }
  for (const piece of url.split(/[?&=/]/)) {
    if (!piece.includes('%')) continue;
    try {
      decodeURIComponent(piece.replace(/\+/g, ' '));
    } catch {
      throw badRequest(`The address has a broken %-escape or is not UTF-8 near '${piece.slice(0, 40)}'; encode it as UTF-8`);
    }
  }
}

/** A host name (letters, digits, '-', '_' in dot-separated labels) or an [IPv6] address, with an optional port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[([0-9A-Fa-f:.]{2,45})\])(?::(\d{1,5}))?$/;

export function isHost(value: string): boolean {
  if (value.length > 261) return false;
  const m = HOST.exec(value);
  if (m === null) return false;
  if (m[1] !== undefined && !net.isIPv6(m[1])) return false;
  return m[2] === undefined || Number(m[2]) <= 65535;
}

/**
 * Refuses a Host, or a trusted X-Forwarded-Host, that is not a host with an optional port (RFC
 * 9112): it goes into URLs the server builds (upload sessions), where '/', '?' or '@' would redirect them.
 */
function checkHost(headerHost: string | undefined, usedHost: string): void {
  for (const [name, value] of [
    ['Host', headerHost],
    ['X-Forwarded-Host', usedHost === headerHost ? undefined : usedHost],
  ] as const) {
    if (value === undefined || value === '' || isHost(value)) continue;
    throw badRequest(`The ${name} header '${value.slice(0, 100)}' is not a host name or address with an optional port`);
  }
}

/**
 * Input every route gets checked before it runs: the Host, the address's escapes, and JSON bodies
 * (UTF-8, depth, NUL and lone surrogates). Each is a 400 naming the problem, before any handler,
 * validator or database (where NUL and broken text fail differently in each dialect).
 */
export function installInputGuard(app: FastifyInstance): void {
  // A callback hook: a promise per request was a measurable share of a small answer.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkUrl(request.url);
      checkHost(request.headers.host, request.host);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(badRequest('The request body is not valid UTF-8'), undefined);
      return;
    }
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      done(badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`), undefined);
      return;
    }
    parseJson(request, text, (err, parsed) => {
      if (err) {
        done(err, undefined);
        return;
      }
      const bad = findBadText(parsed);
      if (bad !== undefined) done(badRequest(`${bad.at} ${bad.problem}`), undefined);
      else done(null, parsed);
    });
  });
}
