// Collects field problems so one 400 names every bad field at once.
import { AppError, type FieldProblem } from "./errors.ts";

export class Problems {
  readonly list: FieldProblem[] = [];

  add(field: string, message: string): void {
    this.list.push({ field, message });
  }

  /** Whether a problem with `field` is already named. */
  has(field: string): boolean {
    return this.list.some((p) => p.field === field);
  }

  throwIfAny(): void {
    if (this.list.length === 0) return;
    throw new AppError("validation_error", this.list.map((p) => `${p.field}: ${p.message}`).join("; "), {
      fields: this.list,
    });
  }
}

/** Whether `value` is one of `values` (a domain enum's list): narrows a string read from input to it. */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return values.some((v) => v === value);
}
