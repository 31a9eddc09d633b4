import zlib from 'node:zlib';
import { promisify } from 'node:util';

const gzip = promisify(zlib.gzip);

/**
 * One remembered list answer: its JSON as UTF-8 bytes, read under `gen`, and its gzip once a client
 * asked for it. Bytes, not text: a string answer is measured and encoded again on every send.
 */
export interface ListAnswer {
  key: string;
  /** A generation read from the database, or one the sole writer knows (a string of its term: decision 030). */
  gen: number | string;
  body: Buffer;
  size: number;
  gzip?: Buffer;
  /** A record answer's ETag (its version), sent with it. */
  etag?: string;
}

/**
 * List answers remembered by kind, project and query, each with the generation of the kind's
 * records in that project it was read under (docs/decisions/025). An answer is used only while
 * that generation has not moved, so it is always what the query would read now: every record
 * write raises the generation in its own transaction, whichever instance makes it. Least recently
 * used answers go first once the byte budget is spent; a budget of 0 remembers nothing.
 */
export class ListCache {
  private readonly entries = new Map<string, ListAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  /** The answer remembered for key, if it was read under this generation. */
  get(key: string, gen: number | string): ListAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.gen !== gen) {
      this.drop(key, hit);
      return undefined;
    }
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  /** Remembers an answer (when it fits the budget) and returns it. */
  set(key: string, gen: number | string, text: string, etag?: string): ListAnswer {
    const body = Buffer.from(text);
    const answer: ListAnswer = { key, gen, body, size: body.length, ...(etag === undefined ? {} : { etag }) };
    if (!this.enabled || answer.size * 2 > this.maxBytes) return answer;
    const old = this.entries.get(key);
    if (old !== undefined) this.drop(key, old);
    this.entries.set(key, answer);
    this.bytes += answer.size;
    this.evict();
    return answer;
  }

  /** The answer's gzip (level 1, as other JSON answers), made once. */
  async gzipOf(answer: ListAnswer): Promise<Buffer> {
    if (answer.gzip === undefined) {
      answer.gzip = answer.size <= 64 * 1024 ? zlib.gzipSync(answer.body, { level: 1 }) : await gzip(answer.body, { level: 1 });
      if (this.entries.get(answer.key) === answer) {
        this.bytes += answer.gzip.length;
        this.evict();
      }
    }
    return answer.gzip;
  }

  /** How many answers and bytes are held (for tests and diagnostics). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private drop(key: string, answer: ListAnswer): void {
    this.entries.delete(key);
    this.bytes -= answer.size + (answer.gzip?.length ?? 0);
  }

  private evict(): void {
    for (const [key, answer] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(key, answer);
    }
  }
}

/** A list request's parsed parameters and the key its answer is remembered under. */
export interface ParsedList<Q> {
  query: Q;
  key: string;
}

/**
 * List addresses already read, per project: the same address asked again skips parsing and
 * checking its parameters (a range's dates most of all), which cost a remembered answer about as
 * much as its lookup. Only addresses that parsed are kept; at most `max`, the oldest first out.
 */
export class ParsedLists<Q> {
  private readonly entries = new Map<string, ParsedList<Q>>();

  constructor(private readonly max = 2000) {}

  /** What `parse` made of this address for this project, parsed once. */
  get(project: string, url: string, parse: () => ParsedList<Q>): ParsedList<Q> {
    const at = `${project}\n${url}`;
    const known = this.entries.get(at);
    if (known !== undefined) return known;
    const parsed = parse();
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(at, parsed);
    return parsed;
  }
}
