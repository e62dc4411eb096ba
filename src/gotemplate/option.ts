// option.ts: template options, a port of Go's text/template/option.go. The only option is missingkey.

/** MissingKeyAction defines how to respond to indexing a map with a key that is not present. */
export const enum MissingKeyAction {
  Invalid = 0, // Return an invalid reflect.Value.
  ZeroValue = 1, // Return the zero value for the map element.
  Error = 2, // Error out
}

/** MissingKey is the missingkey option as written in Go (`missingkey=default|invalid|zero|error`). */
export type MissingKey = 'default' | 'invalid' | 'zero' | 'error';

/** parseMissingKey maps an option value to its action, or undefined when Go would reject it. */
export function parseMissingKey(value: string): MissingKeyAction | undefined {
  switch (value) {
    case 'invalid':
    case 'default':
      return MissingKeyAction.Invalid;
    case 'zero':
      return MissingKeyAction.ZeroValue;
    case 'error':
      return MissingKeyAction.Error;
  }
  return undefined;
}

/**
 * parseOption interprets one Go option string ("missingkey=zero"); it returns the action, or an error text equal
 * to the panic message Go's Template.Option would raise.
 */
export function parseOption(opt: string): { missingKey: MissingKeyAction } | { error: string } {
  if (opt === '') return { error: 'empty option string' };
  const eq = opt.indexOf('=');
  if (eq >= 0) {
    const key = opt.slice(0, eq);
    const value = opt.slice(eq + 1);
    if (key === 'missingkey') {
      const action = parseMissingKey(value);
      if (action !== undefined) return { missingKey: action };
    }
  }
  return { error: 'unrecognized option: ' + opt };
}
