// errors.ts: the one error class the gotemplate component throws at its API edge.

/** TemplateErrorCode says which stage failed; the message is Go's text for that failure. */
export type TemplateErrorCode =
  | 'parse' // the template text is invalid (Go's Parse error)
  | 'exec' // execution failed (Go's ExecError)
  | 'budget' // execution exceeded its step, output or time budget (ExecBudget)
  | 'no_template' // ExecuteTemplate named a template that does not exist
  | 'invalid_option' // Option() got a string Go would panic on
  | 'invalid_func' // Funcs() got a bad name or a value that is not a function
  | 'invalid_json' // decodeJSON got malformed JSON
  | 'frozen'; // a shared (cached) template was modified

/** TemplateError is thrown by the gotemplate API; `message` is formatted exactly like Go's error text. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
  constructor(
    readonly code: TemplateErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
