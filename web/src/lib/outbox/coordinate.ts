/**
 * A coordinate as the app sends it (`gps_lat`, `gps_lon` of photos and signatures): a plain
 * decimal number with at most 7 decimals (about 1 cm; the service keeps 7), trailing zeros dropped,
 * never an exponent (String(1e-7) would be "1e-7") nor 17 digits of binary noise. Pure.
 */
export function coordinateText(value: number): string {
  const text = value.toFixed(7).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}
