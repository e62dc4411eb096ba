// define.ts: declares template functions with their Go signatures, written the way Go prints them, so that the
// executor checks arguments (arity, types, untyped constants) exactly as text/template's reflect-based call does.
import { GoFuncError, type GoFunc, type GoValue } from '../gotemplate/index.js';

/**
 * defineFunc builds a GoFunc from a Go signature such as `(string, ...interface {}) (string, error)`.
 * The implementation receives the fixed arguments followed by the variadic ones, already converted.
 */
export function defineFunc(name: string, signature: string, impl: (...args: any[]) => GoValue): GoFunc {
  let sig = signatures.get(signature);
  if (sig === undefined) {
    sig = parseSignature(signature);
    signatures.set(signature, sig);
  }
  const fn: GoFunc = {
    name,
    params: sig.params,
    result: sig.result,
    impl,
    ...(sig.variadic !== undefined ? { variadic: sig.variadic } : {}),
    ...(sig.returnsError ? { returnsError: true } : {}),
  };
  return Object.freeze(fn);
}

const signatures = new Map<string, Signature>();

interface Signature {
  params: string[];
  variadic?: string;
  result: string;
  returnsError: boolean;
}

/** parseSignature splits `(A, B, ...C) R` or `(A) (R, error)` into its parts. */
function parseSignature(s: string): Signature {
  const m = /^\((.*?)\)\s*(.*)$/.exec(s.trim());
  if (!m) throw new Error(`bad Go signature ${JSON.stringify(s)}`);
  const params = m[1].trim() === '' ? [] : splitTypes(m[1]);
  let variadic: string | undefined;
  if (params.length > 0 && params[params.length - 1].startsWith('...')) {
    variadic = params.pop()!.slice(3);
  }
  let results = m[2].trim();
  let returnsError = false;
  if (results.startsWith('(')) {
    const rs = splitTypes(results.slice(1, -1));
    if (rs.length !== 2 || rs[1] !== 'error') throw new Error(`bad Go results ${JSON.stringify(results)}`);
    results = rs[0];
    returnsError = true;
  }
  if (results === '') throw new Error(`Go template functions return a value: ${JSON.stringify(s)}`);
  return { params, variadic, result: results, returnsError };
}

/** splitTypes splits a comma-separated type list at depth 0 (types like `func(a, b)` keep their commas). */
function splitTypes(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/** goError returns the GoFuncError a function throws to report its `error` result (or a recovered panic). */
export function goError(message: string): GoFuncError {
  return new GoFuncError(message);
}

/** nilDereference is the panic text Go prints for a nil pointer or interface method call. */
export const NIL_DEREFERENCE = 'runtime error: invalid memory address or nil pointer dereference';
