import zlib from 'node:zlib';
import { promisify } from 'node:util';

const gzip = promisify(zlib.gzip);

/** A remembered answer as UTF-8 bytes (a string is measured and encoded on every send), and its gzip once asked for. */
export type ListAnswer = { key: string; gen: number | string; body: Buffer; size: number; gzip?: Buffer; etag?: string };

/**
 * List answers, each used only while the generation it was read under has not moved, so it is what
 * the query would read now (docs/decisions/025). Least recently used go first; 0 bytes remembers nothing.
 */
export class ListCache {
  private readonly entries = new Map<string, ListAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get(key: string, gen: number | string): ListAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.gen !== gen) {
      this.drop(key, hit);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

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

export type ParsedList<Q> = { query: Q; key: string };

/** List addresses parsed once per project (parsing cost a remembered answer as much as its lookup); oldest out first. */
export class ParsedLists<Q> {
  private readonly entries = new Map<string, ParsedList<Q>>();

  constructor(private readonly max = 2000) {}

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
