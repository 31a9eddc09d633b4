import { describe, expect, it } from 'vitest';
import schemas from 'virtual:kind-schemas';
import type { Kind, KindProperty, KindSchema } from '../../src/shared/kind-types';
import { buildRegistry, toKind } from '../../src/shared/kinds';
import { sampleNumber, sampleRecord, sampleText, SAMPLE_ID } from '../../src/client/preview/sample-values';

// The schema preview's sample record (npm run schemas:preview): a value for every field, each
// one the schema allows.

const registry = buildRegistry(schemas as Record<string, KindSchema>);
const kindOf = (name: string): Kind => registry.get(name) as Kind;
const NOW = new Date(2026, 10, 21, 14, 5, 9);

describe('sampleRecord', () => {
  it('fills the issue kind: id, x-default now and startOfToday, defaults, enums, titles, a following end time', () => {
    const r = sampleRecord(kindOf('issue'), NOW);
    expect(r['id']).toBe(SAMPLE_ID);
    expect(r['issueStartTime']).toBe('2026-11-21 14:05:09');
    expect(r['issueDate']).toBe('2026-11-21 00:00:00');
    // No x-default: 45 minutes after the date-time field before it.
    expect(r['issueEndTime']).toBe('2026-11-21 14:50:09');
    expect(r['country']).toBe('UK');
    expect(r['isOverseasSpecific']).toBe('否');
    expect(r['videoAnalysisStatus']).toBe('READY');
    expect(r['issueTitle']).toBe('Sample Title');
    expect(r['faultMileage']).toBe(0);
    expect(r['lon']).toBe(36);
    expect(r['lat']).toBe(18);
  });

  it('keeps every value inside its schema: type, enum, limits, maxLength, date text', () => {
    for (const kind of registry.values()) {
      const r = sampleRecord(kind, NOW);
      for (const [name, prop] of Object.entries(kind.schema.properties)) {
        const value = r[name];
        expect(value, `${kind.name}.${name}`).not.toBeUndefined();
        if (Array.isArray(prop.enum)) expect(prop.enum, `${kind.name}.${name}`).toContain(value);
        if (prop.type === 'number' || prop.type === 'integer') {
          expect(typeof value, `${kind.name}.${name}`).toBe('number');
          if (prop.minimum !== undefined) expect(value as number).toBeGreaterThanOrEqual(prop.minimum);
          if (prop.maximum !== undefined) expect(value as number).toBeLessThanOrEqual(prop.maximum);
          if (prop.type === 'integer') expect(Number.isInteger(value)).toBe(true);
        }
        if (prop.type === 'string') expect(typeof value, `${kind.name}.${name}`).toBe('string');
        if (typeof prop.maxLength === 'number') expect((value as string).length).toBeLessThanOrEqual(prop.maxLength);
        if (prop.format === 'datetime-text') expect(value, `${kind.name}.${name}`).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      }
    }
  });

  it('computes a derived difference and stores connectors as the widget does', () => {
    const r = sampleRecord(kindOf('charging'), NOW);
    expect(r['chargeDistance']).toBe((r['endRange'] as number) - (r['initialRange'] as number));
    expect(r['chargeDistance']).toBeGreaterThan(0);
    expect(JSON.parse(r['remark'] as string)).toEqual({ connectors: [expect.objectContaining({ type: 'CCS2' }), expect.objectContaining({ type: 'Type 2' })] });
  });

  it('fits texts and numbers to tight limits', () => {
    expect(sampleText({ title: 'Plate', maxLength: 4 }, 'plate', false)).toBe('Samp');
    expect(sampleText({ title: 'A', minLength: 12 }, 'a', false)).toHaveLength(12);
    const p = (extra: Partial<KindProperty>): KindProperty => ({ title: 'n', type: 'number', ...extra });
    expect(sampleNumber(p({ minimum: 0, maximum: 10 }), false)).toBe(6);
    expect(sampleNumber(p({ exclusiveMinimum: 0, exclusiveMaximum: 1 }), false)).toBe(0.6);
    expect(sampleNumber(p({ maximum: 5 }), true)).toBe(-35);
    expect(sampleNumber(p({ minimum: 3, maximum: 3 }), true)).toBe(3);
    expect(sampleNumber(p({ multipleOf: 5 }), false, 1)).toBe(55);
  });

  it('fills a kind it has never seen', () => {
    const kind = toKind('tyre', {
      ...(schemas as Record<string, KindSchema>)['issue'],
      properties: {
        id: { title: 'ID', type: 'integer', readOnly: true },
        projectName: { title: 'Project', type: 'string', readOnly: true },
        vehicleNo: { title: 'Vehicle', type: 'string', readOnly: true },
        checked: { title: 'Checked', type: 'boolean' },
        pressure: { title: 'Pressure', type: 'integer', minimum: 1, maximum: 9 },
        ok: { title: 'OK', type: 'string', enum: ['是', '否'], 'x-ui': { widget: 'yesNo' } },
      },
    } as KindSchema);
    expect(sampleRecord(kind, NOW)).toEqual({ id: SAMPLE_ID, projectName: 'DEMO', vehicleNo: 'DEMO-V1', checked: true, pressure: 6, ok: '是' });
  });
});
