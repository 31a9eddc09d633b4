import { describe, expect, it } from 'vitest';
import { formatCardValue } from '../../src/client/engine/format';
import { fromInputValue, toInputValue } from '../../src/client/engine/widgets/date-text';
import { difference, parseConnectors, readYesNo, serializeConnectors } from '../../src/client/engine/widgets/widget-values';

describe('yes/no reading rules', () => {
  it.each([
    ['是', '是'],
    ['yes', '是'],
    ['YES', '是'],
    ['1', '是'],
    [1, '是'],
    ['True', '是'],
    [true, '是'],
    ['否', '否'],
    ['no', '否'],
    ['0', '否'],
    ['maybe', '否'],
    [null, ''],
    [undefined, ''],
    ['', ''],
  ])('%j reads as %j', (value, expected) => {
    expect(readYesNo(value)).toBe(expected);
  });
});

describe('connector parsing', () => {
  it('takes the connectors array of the remark object', () => {
    expect(parseConnectors('{"connectors":[{"type":"CCS2","power":150,"total":2}]}')).toEqual([{ type: 'CCS2', power: '150', total: '2' }]);
  });
  it('uses a remark that parses to a list as the connectors', () => {
    expect(parseConnectors('[{"type":"Type 2","power":"22","total":"1"}]')).toEqual([{ type: 'Type 2', power: '22', total: '1' }]);
  });
  it.each(['', 'free text remark', '{"connectors":5}', '{"other":1}', '42', 'null', '{broken'])('gives an empty list for %j', (remark) => {
    expect(parseConnectors(remark)).toEqual([]);
  });
  it('round-trips through the remark JSON', () => {
    const list = [{ type: 'CCS2', power: '150', total: '2' }];
    expect(parseConnectors(serializeConnectors(list))).toEqual(list);
  });
});

describe('date and time fields', () => {
  it('shows stored texts in the picker and stores the picker’s value in the contract format', () => {
    expect(toInputValue('2026-11-21 08:30:05', 'datetime')).toBe('2026-11-21T08:30:05');
    expect(toInputValue('2026-11-21', 'datetime')).toBe('2026-11-21T00:00:00');
    expect(toInputValue('2026-11-21 08:30:05', 'date')).toBe('2026-11-21');
    expect(toInputValue('', 'datetime')).toBe('');
    expect(fromInputValue('2026-11-21T08:30', 'datetime')).toBe('2026-11-21 08:30:00');
    expect(fromInputValue('2026-11-21T08:30:05', 'datetime')).toBe('2026-11-21 08:30:05');
    expect(fromInputValue('2026-11-21', 'date')).toBe('2026-11-21');
    expect(fromInputValue('', 'datetime')).toBeUndefined();
  });
});

describe('derived charge distance', () => {
  it('is endRange minus initialRange when both are numbers', () => {
    expect(difference({ endRange: 310.5, initialRange: 120 }, ['endRange', 'initialRange'])).toBe(190.5);
    expect(difference({ endRange: '300', initialRange: '120' }, ['endRange', 'initialRange'])).toBe(180);
    expect(difference({ endRange: 300 }, ['endRange', 'initialRange'])).toBeNull();
    expect(difference({ endRange: 'abc', initialRange: 1 }, ['endRange', 'initialRange'])).toBeNull();
  });
});

describe('card formats', () => {
  it('formats values as the card layouts ask', () => {
    expect(formatCardValue('2026-11-20 08:30:45', 'datetime-minute')).toBe('2026-11-20 08:30');
    expect(formatCardValue('2026-11-20T08:30:45', 'time')).toBe('08:30:45');
    expect(formatCardValue('2026-11-20 08:30:45', 'date')).toBe('2026-11-20');
    expect(formatCardValue(135, 'hours-minutes')).toBe('2h 15m');
    expect(formatCardValue(45, 'hours-minutes')).toBe('0h 45m');
    expect(formatCardValue(88, 'km-1')).toBe('88.0 km');
    expect(formatCardValue('12.345', 'km-1')).toBe('12.3 km');
    expect(formatCardValue(1520, 'km')).toBe('1520 km');
    expect(formatCardValue(44.6, 'minutes')).toBe('45 min');
    expect(formatCardValue('', 'km')).toBeNull();
    expect(formatCardValue('not a date', 'datetime-minute')).toBeNull();
  });
});
