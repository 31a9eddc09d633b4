import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

// A schema file's text as parsed, with where in it a problem is: the line and column of a syntax
// error, a duplicated key, or what a check's message names. jsonc-parser (VS Code's) gives the
// offsets; JSON.parse has the last word on what is valid JSON.

export type Position = { line: number; column: number };

/** A problem at a place in a file. */
export type PlacedProblem = Position & { message: string };

export interface ParsedSchemaText {
  /** The parsed JSON; undefined when the text is not valid JSON (then `syntax` says why). */
  value: unknown;
  /** The first JSON syntax error: later ones follow from it. */
  syntax: PlacedProblem | undefined;
  /** Keys given twice in one object: JSON.parse keeps the last silently. */
  duplicates: PlacedProblem[];
  /** Where a check's message points to in this text; (1, 1) when it names no place found here. */
  locate(message: string): Position;
}

/** 1-based line and column of an offset in a text (columns count UTF-16 units, as editors do). */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** What a syntax error means, in words, and where to point at (sometimes before jsonc-parser's offset). */
function describeSyntaxError(text: string, error: ParseError): { offset: number; message: string } {
  const at = error.offset;
  const token = text.slice(at, at + Math.max(error.length, 1));
  // A string token shows its own double quotes; anything else is put in single quotes.
  const here = token.startsWith('"') || token.includes("'") ? token : `'${token}'`;
  // The last character before the error's that is not white space, or -1.
  const before = text.slice(0, at).trimEnd().length - 1;
  const atEnd = at >= text.length;
  const lineOf = (offset: number): number => positionAt(text, offset).line;
  switch (printParseErrorCode(error.error)) {
    case 'InvalidSymbol':
      if (token.startsWith("'")) return { offset: at, message: 'unexpected "\'": JSON text is written in double quotes' };
      return { offset: at, message: `unexpected ${here}: expected a value (text in double quotes, a number, true, false, null, an object or a list)` };
    case 'InvalidNumberFormat':
      return { offset: at, message: `${here} is not a number as JSON writes them` };
    case 'PropertyNameExpected':
    case 'ValueExpected':
      if ((text[at] === '}' || text[at] === ']') && text[before] === ',')
        return { offset: before, message: `a ',' before '${text[at]}' is not allowed in JSON: remove this comma` };
      if (atEnd) return { offset: at, message: 'the file ends where a value was expected' };
      return printParseErrorCode(error.error) === 'PropertyNameExpected'
        ? { offset: at, message: `expected a property name in double quotes, found ${here}` }
        : { offset: at, message: `expected a value (text in double quotes, a number, true, false, null, an object or a list), found ${here}` };
    case 'ColonExpected':
      return { offset: at, message: `expected ':' after the property name${atEnd ? '' : `, found ${here}`}` };
    case 'CommaExpected':
      return before >= 0 && lineOf(before) !== lineOf(at)
        ? { offset: at, message: `expected ',' before this: add it at the end of line ${lineOf(before)}` }
        : { offset: at, message: `expected ',' before ${here}` };
    case 'CloseBraceExpected':
      return { offset: at, message: atEnd ? "the file ends before every '{' is closed by a '}'" : `expected ',' or '}', found ${here}` };
    case 'CloseBracketExpected':
      return { offset: at, message: atEnd ? "the file ends before every '[' is closed by a ']'" : `expected ',' or ']', found ${here}` };
    default:
      return { offset: at, message: SYNTAX_WORDS[printParseErrorCode(error.error)] ?? 'not valid JSON here' };
  }
}

/** What the syntax errors that need no more than their place mean. */
const SYNTAX_WORDS: Record<string, string> = {
  EndOfFileExpected: "expected the end of the file: something follows the object's closing '}'",
  InvalidCommentToken: 'JSON has no comments: put a note in a "description" instead',
  UnexpectedEndOfComment: 'JSON has no comments: put a note in a "description" instead',
  UnexpectedEndOfString: "expected '\"' to close this text",
  UnexpectedEndOfNumber: 'a number ends too early',
  InvalidUnicode: 'expected four hexadecimal digits after \\u',
  InvalidEscapeCharacter: 'unknown escape after \\ in text: write \\\\ for a backslash',
  InvalidCharacter: 'a line break or tab inside text: write \\n or \\t',
};

/** Node 20 says 'at position 123', later versions '(line 2 column 5)'. */
function offsetInJsonParseError(text: string, message: string): number {
  const position = /at position (\d+)/.exec(message);
  if (position) return Number(position[1]);
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (!lineColumn) return 0;
  const lines = text.split('\n');
  const line = Number(lineColumn[1]);
  return lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + Number(lineColumn[2]) - 1;
}

/** The last member or array item of a path that exists; string segments may be joined to match a key that contains dots. */
function walk(root: Node, segments: Array<string | number>): Node {
  let node: Node = root;
  let at: Node = root;
  let rest = segments;
  while (rest.length > 0) {
    const [first] = rest;
    if (node.type === 'array' && typeof first === 'number') {
      const item = node.children?.[first];
      if (item === undefined) break;
      node = item;
      at = item;
      rest = rest.slice(1);
      continue;
    }
    if (node.type !== 'object') break;
    let matched = false;
    for (let n = rest.length; n >= 1 && !matched; n--) {
      const parts = rest.slice(0, n);
      if (parts.some((p) => typeof p !== 'string')) continue;
      const member = node.children?.find((m) => m.children?.[0]?.value === parts.join('.'));
      const value = member?.children?.[1];
      if (member === undefined || value === undefined) continue;
      at = member;
      node = value;
      rest = rest.slice(n);
      matched = true;
    }
    if (!matched) break;
  }
  return at;
}

/** 'x-kind.card.lines[1].field' -> ['x-kind', 'card', 'lines', 1, 'field']. */
function segmentsOf(dotted: string): Array<string | number> {
  const out: Array<string | number> = [];
  for (const part of dotted.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    if (m[1] !== '') out.push(m[1] as string);
    for (const index of (m[2] ?? '').matchAll(/\[(\d+)\]/g)) out.push(Number(index[1]));
  }
  return out;
}

/** The value at a path in parsed JSON, or undefined. */
function valueAt(value: unknown, segments: Array<string | number>): unknown {
  return segments.reduce<unknown>(
    (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined),
    value,
  );
}

/** The path a check's message is about: '<dotted path> <what>' from the meta-check, a value ('api /vtp/poi …') from the registry's. */
function pathOfMessage(message: string, value: unknown): Array<string | number> {
  /** [...at, the index of item in the list at `at`]; the list itself when the item is not in it. */
  const itemOf = (at: Array<string | number>, item: unknown): Array<string | number> => {
    const list = valueAt(value, at);
    return Array.isArray(list) && list.includes(item) ? [...at, list.indexOf(item)] : at;
  };
  let m = /^\(root\) has unknown keyword '([^']+)'/.exec(message);
  if (m) return [m[1] as string];
  m = /^(\S+) has unknown keyword '([^']+)'/.exec(message);
  if (m) return [...segmentsOf(m[1] as string), m[2] as string];
  if (message.startsWith('$id ')) return ['$id'];
  if (message.startsWith('api ')) return ['x-kind', 'apiPath'];
  if (message.startsWith('route ')) return ['x-kind', 'route'];
  if (message.startsWith('attachment folder ')) return ['x-kind', 'attachments', 'folder'];
  m = /^stats name (\S+)/.exec(message);
  if (m) return valueAt(value, ['x-kind', 'dataPage', 'count']) === m[1] ? ['x-kind', 'dataPage', 'count'] : ['x-kind', 'dataPage', 'sums', m[1] as string];
  m = /^package route (\S+)/.exec(message);
  if (m) {
    const packages = valueAt(value, ['x-kind', 'packages']);
    const route = m[1];
    const index = Array.isArray(packages) ? packages.findIndex((p) => valueAt(p, ['route']) === route) : -1;
    return index === -1 ? ['x-kind', 'packages'] : ['x-kind', 'packages', index, 'route'];
  }
  m = /^'([^']*)' is in x-renamedFrom of both \S+ and (\S+);/.exec(message);
  if (m) return itemOf(['properties', m[2] as string, 'x-renamedFrom'], m[1]);
  // 'required names …', 'x-kind.filters names 'city', …', 'x-kind.sortable names 'city', …': the item or the key.
  m = /^(\S+) names '([^']*)'/.exec(message);
  if (m) {
    const at = segmentsOf(m[1] as string);
    const named = valueAt(value, at);
    if (named !== null && typeof named === 'object' && !Array.isArray(named) && Object.hasOwn(named, m[2] as string)) return [...at, m[2] as string];
    return itemOf(at, m[2]);
  }
  m = /^(properties|x-kind|required|\$id|\$schema|title|description|type)([.[]\S*?)?:?(\s|$)/.exec(message);
  if (m) return segmentsOf(`${m[1]}${m[2] ?? ''}`);
  return [];
}

export function parseSchemaText(text: string): ParsedSchemaText {
  const place = (offset: number, message: string): PlacedProblem => ({ ...positionAt(text, offset), message });
  const noPlace = (): Position => ({ line: 1, column: 1 });
  const invalid = (offset: number, message: string): ParsedSchemaText => ({
    value: undefined,
    syntax: place(offset, message),
    duplicates: [],
    locate: noPlace,
  });
  if (text.charCodeAt(0) === 0xfeff) return invalid(0, 'the file starts with a byte order mark (BOM): save it as UTF-8 without BOM');
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined) {
    const { offset, message } = describeSyntaxError(text, first);
    return invalid(offset, message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    return invalid(offsetInJsonParseError(text, message), message);
  }
  const duplicates: PlacedProblem[] = [];
  const visit = (node: Node | undefined, path: string): void => {
    if (node === undefined) return;
    if (node.type === 'object') {
      const seen = new Set<string>();
      for (const member of node.children ?? []) {
        const key = member.children?.[0];
        const name = String(key?.value);
        if (seen.has(name) && key !== undefined)
          duplicates.push(place(key.offset, `${path === '' ? '(root)' : path} has the key '${name}' twice: JSON keeps only the last one; remove one`));
        seen.add(name);
        visit(member.children?.[1], path === '' ? name : `${path}.${name}`);
      }
    } else if (node.type === 'array') {
      node.children?.forEach((item, i) => visit(item, `${path}[${i}]`));
    }
  };
  visit(tree, '');
  const locate = (message: string): Position => {
    if (tree === undefined) return noPlace();
    const segments = pathOfMessage(message, value);
    if (segments.length === 0) return noPlace();
    const node = walk(tree, segments);
    // A member: its key; an array item or the root: the value itself.
    const target = node.type === 'property' ? (node.children?.[0] ?? node) : node;
    return positionAt(text, target.offset);
  };
  return { value, syntax: undefined, duplicates, locate };
}
