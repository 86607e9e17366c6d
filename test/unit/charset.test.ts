import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitText } from '../../src/dolibarr/charset.js';

test('fitText: what a column of each character set cannot hold is replaced; the length is cut in characters', () => {
  assert.equal(fitText('Zähler 😀 Foto.jpg', 'utf8mb4', null), 'Zähler 😀 Foto.jpg');
  assert.equal(fitText('Zähler 😀 Foto.jpg', 'utf8mb3', null), 'Zähler \uFFFD Foto.jpg');
  assert.equal(fitText('Zähler 😀 Foto.jpg', 'utf8', null), 'Zähler \uFFFD Foto.jpg');
  assert.equal(fitText('Zähler € 😀', 'latin1', null), 'Zähler ? ?');
  assert.equal(fitText('Zähler 😀', 'ascii', null), 'Z?hler ?');
  assert.equal(fitText('äöü😀😀', 'utf8', 4), 'äöü\uFFFD');
  assert.equal(fitText('äöü😀😀', null, 4), 'äöü😀');
});
