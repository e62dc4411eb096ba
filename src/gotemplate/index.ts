// gotemplate: a port of Go's text/template (lexer, parser, executor) with Go's value model and fmt printing.
export * from './value.js';
export { Template, parseCached, CACHE_LIMIT, type TemplateOptions, type Escape } from './template.js';
export { TemplateError, type TemplateErrorCode } from './errors.js';
export { DEFAULT_EXEC_BUDGET, type ExecBudget } from './exec.js';
export type { MissingKey } from './option.js';
export { sprint, sprintArgs, sprintf, sprintfArgs, sprintln, sprintlnArgs, formatValue } from './fmt.js';
export {
  atoi,
  formatFloat,
  parseFloat64,
  parseInt64,
  parseUint64,
  quote,
  quoteRune,
  quoteToASCII,
  unquote,
  type FloatFormat,
  type NumResult,
} from './strconv.js';
export { goTypeOf, kindOf, GoComplex, type Kind } from './reflect.js';
export { isTrue, truth, compare, htmlEscapeString, jsEscapeString, urlQueryEscape } from './funcs.js';
export { decodeJSON, rawTopLevelField, toPlainJSON, type DecodeOptions, type NumberMode, type NumberModes } from './json.js';
export { compareStrings, utf8Len } from './utf8.js';
