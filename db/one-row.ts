// `insert ... returning` and `update ... returning` of one row answer an array: the row, or nothing when
// the statement matched none (a record deleted meanwhile). This takes the row and fails loudly on the
// empty answer instead of letting an undefined travel on as the row's type.

/** The one row a `returning()` gave; throws `missing()` (or a plain error) when it gave none. */
export function oneRow<T>(rows: readonly T[], missing?: () => Error): T {
  const [row] = rows;
  if (row === undefined) throw missing?.() ?? new Error("the statement returned no row");
  return row;
}
