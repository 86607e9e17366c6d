/**
 * The sign-off's rules without a service: what it takes (texts as stored, quantities to three
 * places), how the visit signed compares with the visit now (equal lines matched once each, an
 * interval paired by its arrival, a work description the same in HTML and as text), and the counts
 * and words a person reads.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  coverageCounts,
  notCoveredInWords,
  parseSignoff,
  signedVisit,
  visitCoverage,
  type SignedVisit,
} from '../../src/modules/signatures/signoff.js';

const parse = (value: unknown) => parseSignoff(Buffer.from(JSON.stringify(value)));
const line = (label: string, qty = 1, unit: string | null = 'Stk', note: string | null = null) => ({ label, qty, unit, note });

describe('sign-off', () => {
  test('texts are taken as the service stores them, quantities to three places, absent lists are empty', () => {
    const s = parse({ work: '  Wartung\r\nTherme  ', materials: [{ label: ' Dichtung ', qty: 2.5, unit: '', note: '  ' }], pages: 3 });
    assert.deepEqual(s, {
      work: 'Wartung\nTherme',
      times: [],
      materials: [{ label: 'Dichtung', qty: 2.5, unit: null, note: null }],
      checklist: null,
      pages: 3,
      photos: 0,
      missing: [],
    });
    assert.equal(parse({ materials: [{ label: 'x', qty: 0.1 + 0.2 }] }).materials[0]!.qty, 0.3, 'a float sum is the quantity it means');
  });

  test('two equal lines are two lines: removing one of them is one change', () => {
    const signed: SignedVisit = { work: null, times: [], materials: [line('Schraube'), line('Schraube')] };
    const now: SignedVisit = { work: null, times: [], materials: [line('Schraube')] };
    const c = visitCoverage(signed, now);
    assert.equal(c.covered, false);
    assert.deepEqual(c.materials_removed, [line('Schraube')]);
    assert.deepEqual(c.materials_added, []);
    assert.equal(notCoveredInWords(c), '1 Materialposition entfernt');
    assert.equal(visitCoverage(signed, signed).covered, true);
    assert.equal(notCoveredInWords(visitCoverage(signed, signed)), null);
  });

  test('the order of lines and intervals does not matter; a departure recorded later is one interval changed', () => {
    const signed = signedVisit({
      work: 'Wartung',
      times: [
        { arrival: 2000, departure: null },
        { arrival: 1000, departure: 1500 },
      ],
      materials: [line('A'), line('B', 2, 'm')],
    });
    assert.deepEqual(
      signed.times.map((t) => t.arrival),
      [1000, 2000],
      'times by arrival',
    );
    const now: SignedVisit = {
      work: '<p>Wartung</p>',
      times: [
        { arrival: 1000, departure: 1500 },
        { arrival: 2000, departure: 2600 },
      ],
      materials: [line('B', 2, 'm'), line('A')],
    };
    const c = visitCoverage(signed, now);
    assert.equal(c.work_changed, false, 'the same words in HTML are the same work');
    assert.deepEqual(c.materials_added, []);
    assert.deepEqual(c.times_added, [{ arrival: 2000, departure: 2600 }]);
    assert.deepEqual(c.times_removed, [{ arrival: 2000, departure: null }]);
    assert.deepEqual(coverageCounts(c), {
      work: false,
      materials: { changed: 0, added: 0, removed: 0 },
      times: { changed: 1, added: 0, removed: 0 },
    });
    assert.equal(notCoveredInWords(c), '1 Zeitraum geändert');
  });

  test('words name each kind of change with its count, the work first', () => {
    const signed: SignedVisit = { work: 'Alt', times: [{ arrival: 1, departure: 2 }], materials: [line('A'), line('B')] };
    const now: SignedVisit = {
      work: 'Neu',
      times: [
        { arrival: 5, departure: 6 },
        { arrival: 7, departure: 8 },
      ],
      materials: [line('A', 2), line('C'), line('D')],
    };
    assert.equal(
      notCoveredInWords(visitCoverage(signed, now)),
      'die Arbeitsbeschreibung geändert, 2 Zeiträume hinzugefügt, 1 Zeitraum entfernt, 2 Materialpositionen geändert, 1 Materialposition hinzugefügt',
    );
  });
});
