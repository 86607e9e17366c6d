/**
 * Amounts as Dolibarr gives them: price2num($amount, 'MT') rounds a total to the currency's
 * decimals (MAIN_MAX_DECIMALS_TOT, 2 by default) with PHP's round(), half away from zero, after
 * PHP's pre-rounding to 15 significant digits, so a stored 1582.6999999999998 reads 1582.7.
 */

import { BoundedMap } from '../bounded-map.js';

/** MAIN_MAX_DECIMALS_TOT when the constant is not set. */
export const DEFAULT_TOTAL_DECIMALS = 2;

/** Each number of decimals' last roundings: a list shows the same totals again and again. @default 4096 */
const KEPT_ROUNDINGS = 4096;
const kept = new Map<number, BoundedMap<number, number>>();

/**
 * `value` rounded to `decimals` as PHP's round() does. toPrecision() costs about a third of a
 * microsecond, a list of 50 orders 50 of them; so a value that is whole once scaled (below 10^15,
 * where 15 digits hold it exactly and the pre-rounding changes nothing) skips it, and the others'
 * roundings, a pure function of the two arguments, are kept.
 */
export function roundTotal(value: number, decimals: number = DEFAULT_TOTAL_DECIMALS): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** decimals;
  const scaled = Math.abs(value) * factor;
  if (Number.isInteger(scaled) && scaled < 1e15) {
    const whole = (Math.sign(value) * scaled) / factor;
    return Object.is(whole, -0) ? 0 : whole;
  }
  let known = kept.get(decimals);
  if (!known) kept.set(decimals, (known = new BoundedMap(KEPT_ROUNDINGS)));
  let rounded = known.get(value);
  if (rounded === undefined) known.set(value, (rounded = roundSlowly(value, factor)));
  return rounded;
}

function roundSlowly(value: number, factor: number): number {
  const scaled = Number((Math.abs(value) * factor).toPrecision(15));
  const rounded = (Math.sign(value) * Math.round(scaled)) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** The decimals of totals from MAIN_MAX_DECIMALS_TOT (0 to 8), or the default. */
export function totalDecimals(constant: string | undefined): number {
  const n = Number(constant);
  return constant !== undefined && constant.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 8 ? n : DEFAULT_TOTAL_DECIMALS;
}
