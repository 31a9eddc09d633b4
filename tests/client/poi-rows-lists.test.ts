import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sheetRows } from '../../src/client/kinds/poi-rows';

// The app's own Excel export (the POI list): a list of choices is one cell, its labels joined (docs/decisions/061).

const CHOICES = ['rain', 'night', 'highway'];
const LABELS: Record<string, string> = { rain: 'Rain', night: 'At night' };
const kind = { fields: ['id', 'conditions'], exportFields: ['id', 'conditions'], formats: {}, labels: { conditions: LABELS } };

describe('the POI sheet', () => {
  it('writes any list of choices as one cell of their labels (or values), joined', () => {
    fc.assert(
      fc.property(fc.subarray(CHOICES), (chosen) => {
        const { data } = sheetRows(kind, [{ id: 1, conditions: chosen }]);
        expect(data[0]?.['conditions']).toBe(chosen.map((c) => LABELS[c] ?? c).join(', '));
      }),
      { seed: 41 },
    );
  });
});
