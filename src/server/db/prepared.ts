import type { Compilable, CompiledQuery } from 'kysely';

/**
 * The SQL texts of statements built once (these and other compiled hot queries), each with a name
 * that PostgreSQL connections prepare it under (database.ts): the server then parses and plans it
 * once per connection instead of on every run, which halved the database's time for a one-row read
 * in a pgbench comparison on this machine. Bounded by the code, not by requests: only statements
 * built once are named, never a list query assembled per request.
 */
const builtOnce = new Map<string, string>();

/** Marks a compiled query's SQL as built once; PostgreSQL connections then prepare it by name. */
export function builtOnceQuery<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!builtOnce.has(query.sql)) builtOnce.set(query.sql, `rtd_${builtOnce.size + 1}`);
  return query;
}

/** The name a statement built once is prepared under, or undefined for any other SQL. */
export function preparedName(sqlText: string): string | undefined {
  return builtOnce.get(sqlText);
}

/** What a placeholder value looks like inside a compiled query's parameters: it cannot be sent by a client (NUL is refused at the door). */
const MARK = '\u0000rtd-value:';

/**
 * A statement built once through Kysely's query builder, with a named placeholder for each value,
 * and then run many times with values. For the small statements every write runs (a day count, a
 * history row, the generation), building and compiling the query cost more than the database took
 * to run it (docs/PERFORMANCE.md). The SQL is the builder's own, so it stays right for both dialects, and any
 * connection or transaction runs it (`executeQuery(statement.with(values))`).
 */
export class Prepared<Name extends string, Row = unknown> {
  private compiled: CompiledQuery<Row> | undefined;
  /** Per parameter of the compiled query: the name whose value goes there, or undefined for a constant. */
  private slots: (Name | undefined)[] = [];

  /**
   * @param names the values it takes
   * @param build builds the query once from placeholders (typed `never`, so they fit any column);
   *   every name must be used
   */
  constructor(
    private readonly names: readonly Name[],
    private readonly build: (values: Record<Name, never>) => Compilable<Row>,
  ) {}

  /** The compiled query with these values in its placeholders' places. */
  with(values: Record<Name, unknown>): CompiledQuery<Row> {
    const compiled = this.compiled ?? this.compile();
    return {
      ...compiled,
      parameters: compiled.parameters.map((constant, i) => {
        const name = this.slots[i];
        return name === undefined ? constant : values[name];
      }),
    };
  }

  private compile(): CompiledQuery<Row> {
    const placeholders = Object.fromEntries(this.names.map((name) => [name, `${MARK}${name}`])) as Record<Name, never>;
    const compiled = this.build(placeholders).compile();
    if (compiled.sql.includes(MARK)) throw new Error(`The prepared statement put a value into its SQL text: ${compiled.sql}`);
    this.slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? (p.slice(MARK.length) as Name) : undefined));
    const unused = this.names.filter((name) => !this.slots.includes(name));
    if (unused.length > 0) throw new Error(`The prepared statement does not use ${unused.join(', ')}: ${compiled.sql}`);
    this.compiled = builtOnceQuery(compiled);
    return compiled;
  }
}
