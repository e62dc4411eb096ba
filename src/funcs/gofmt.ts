// gofmt.ts: the Go fmt/strconv/reflect printing the function library needs, taken from ../gotemplate (the engine
// owns Go's printing rules; Sprig builds many results with fmt.Sprintf("%v") and they must agree byte for byte).
import {
  compareStrings,
  formatFloat as engineFormatFloat,
  formatValue,
  goTypeOf,
  quote,
  sprint as engineSprint,
  type GoValue,
} from '../gotemplate/index.js';

/** typeOf is Go's `%T` of a value held in an interface{}: `<nil>`, `string`, `[]interface {}` …. */
export const typeOf: (v: GoValue) => string = goTypeOf;

/** sprintValue is fmt's `%v` of one operand. */
export const sprintValue: (v: GoValue) => string = formatValue;

/** sprint is fmt.Sprint: operands are separated by a space when neither side is a string. */
export const sprint: (...args: GoValue[]) => string = engineSprint;

/** quoteGo is strconv.Quote. */
export const quoteGo: (s: string) => string = quote;

/** compareGoStrings orders strings by their UTF-8 bytes, as Go's `<` on strings does. */
export const compareGoStrings: (a: string, b: string) => number = compareStrings;

/** formatFloat is strconv.FormatFloat(f, fmt, prec, 64); prec -1 means the shortest representation. */
export function formatFloat(f: number, fmt: 'g' | 'e' | 'f', prec = -1): string {
  return engineFormatFloat(f, fmt, prec, 64);
}
