import { message } from '../http/route-validation.js';

// Schemas of values several routes take, which describe the API and validate requests (http/route-validation.ts).

/** The largest id the id columns hold in both dialects (PostgreSQL serial is a 32-bit integer). */
export const MAX_ID = 2147483647;

/** A pattern for the whole numbers from 1 to max as digits without leading zeros: a range said of text. */
export function wholeNumberText(max: number): string {
  const digits = String(max);
  const alternatives: string[] = [];
  if (digits.length > 1) alternatives.push(digits.length === 2 ? '[1-9]' : `[1-9][0-9]{0,${digits.length - 2}}`);
  for (let i = 0; i < digits.length; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(digits[i]) - 1;
    if (high < low) continue;
    const rest = digits.length - i - 1;
    alternatives.push(`${digits.slice(0, i)}[${low}-${high}]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  alternatives.push(digits);
  return `^(${alternatives.join('|')})$`;
}

/** A record id where the request is text (a path or query value): read as a whole number. */
export const recordId = (description: string, words?: Record<string, unknown>): Record<string, unknown> => ({
  type: 'integer',
  minimum: 1,
  maximum: MAX_ID,
  description,
  ...words,
});

/** A record id in a JSON body: a number, or its digits as text (RuoYi-style clients send either). */
export function recordIdInBody(description: string, words?: Record<string, unknown>): Record<string, unknown> {
  return {
    type: ['integer', 'string'],
    minimum: 1,
    maximum: MAX_ID,
    pattern: wholeNumberText(MAX_ID),
    description: `${description} (a number, or its digits as text)`,
    ...(words ?? message(`must be a whole number from 1 to ${MAX_ID}`, `必须是 1 到 ${MAX_ID} 之间的整数`)),
  };
}

export function recordVersion(description: string): Record<string, unknown> {
  return {
    type: 'integer',
    minimum: 0,
    maximum: MAX_ID,
    description,
    ...message('must be the record version you saw (a whole number)', '必须是您看到的记录版本（整数）'),
  };
}

/** The If-Match header of a write: a record version ("3", W/"3", 3) or *. */
export const IF_MATCH = {
  type: 'string',
  pattern: '^\\s*(\\*|(W/)?"?[0-9]{1,10}"?)\\s*$',
  description: 'The version the edit is based on, such as "3" (W/"3" and 3 are read too; * means none)',
  ...message('must be a record version such as "3"', '必须是记录版本，如 "3"'),
};

export const dayParam = (description: string): Record<string, unknown> => ({
  type: 'string',
  format: 'date',
  description,
  ...message('must be a day like 2026-11-21 (yyyy-MM-dd)', '必须是日期，如 2026-11-21（yyyy-MM-dd）'),
});
