/**
 * The name an uploaded file is stored under (src/dolibarr/filenames.ts, uploadFileName): no control
 * character (C0, DEL, C1) and no direction override or isolate survives from the client's name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uploadFileName } from '../../src/dolibarr/filenames.js';

test("control characters and direction overrides go from a client's file name", () => {
  assert.equal(uploadFileName('Heizung\u202Egpj.exe.jpg', 'jpg'), 'Heizunggpj.exe.jpg');
  assert.equal(uploadFileName('Zahler\u0085\u009Bstand\u2066 alt\u2069.png', 'png'), 'Zahlerstand alt.png');
  assert.equal(uploadFileName('a\u0000b\u001Fc\u007Fd\u202Ae\u202Bf\u202Cg\u202Dh\u2067i\u2068j.webp', 'webp'), 'abcdefghij.webp');
  // Letters stay (accents dropped, as Dolibarr does).
  assert.equal(uploadFileName('Kessel Müller.jpeg', 'jpg'), 'Kessel Muller.jpg');
  for (let code = 0; code <= 0x2fff; code++) {
    const ch = String.fromCharCode(code);
    const name = uploadFileName(`a${ch}b.jpg`, 'jpg');
    assert.doesNotMatch(name, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, `U+${code.toString(16)}`);
  }
});
