/**
 * Amounts as Dolibarr gives them: price2num($amount, 'MT') rounds a total to the currency's
 * decimals (MAIN_MAX_DECIMALS_TOT, 2 by default) with PHP's round(), half away from zero, after
 * PHP's pre-rounding to 15 significant digits, so a stored 1582.6999999999998 reads 1582.7.
 */

/** MAIN_MAX_DECIMALS_TOT when the constant is not set. */
export const DEFAULT_TOTAL_DECIMALS = 2;

/** `value` rounded to `decimals` as PHP's round() does. */
export function roundTotal(value: number, decimals: number = DEFAULT_TOTAL_DECIMALS): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** decimals;
  const scaled = Number((Math.abs(value) * factor).toPrecision(15));
  const rounded = (Math.sign(value) * Math.round(scaled)) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** The decimals of totals from MAIN_MAX_DECIMALS_TOT (0 to 8), or the default. */
export function totalDecimals(constant: string | undefined): number {
  const n = Number(constant);
  return constant !== undefined && constant.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 8 ? n : DEFAULT_TOTAL_DECIMALS;
}
