// os.ts: Sprig's env, expandenv and getHostByName. They read the controller's environment and DNS in Sveltos;
// in Ripple they are disabled unless FuncOptions provides an environment or a resolver (DESIGN.md, improvement 5).
import type { GoFunc } from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import { randomInt, type ResolvedOptions } from './options.js';

const isShellSpecial = (c: string) => '*#$@!?-0123456789'.includes(c);
const isAlphaNum = (c: string) => /^[A-Za-z0-9_]$/.test(c);

/** getShellName finds the variable name after a `$`. Go: os/env.go getShellName */
function getShellName(s: string): [string, number] {
  if (s[0] === '{') {
    if (s.length > 2 && isShellSpecial(s[1]) && s[2] === '}') return [s.slice(1, 2), 3];
    for (let i = 1; i < s.length; i++) {
      if (s[i] === '}') {
        if (i === 1) return ['', 2];
        return [s.slice(1, i), i + 1];
      }
    }
    return ['', 1];
  }
  if (isShellSpecial(s[0])) return [s.slice(0, 1), 1];
  let i = 0;
  while (i < s.length && isAlphaNum(s[i])) i++;
  return [s.slice(0, i), i];
}

/** expandEnv is os.Expand: $VAR and ${VAR}; a `$` not followed by a name stays, bad `${…}` syntax is dropped. */
export function expandEnv(s: string, lookup: (name: string) => string): string {
  let buf: string | undefined;
  let i = 0;
  for (let j = 0; j < s.length; j++) {
    if (s[j] === '$' && j + 1 < s.length) {
      buf ??= '';
      buf += s.slice(i, j);
      const [name, w] = getShellName(s.slice(j + 1));
      if (name === '' && w > 0) {
        // invalid syntax: the characters are eaten
      } else if (name === '') buf += s[j];
      else buf += lookup(name);
      j += w;
      i = j + 1;
    }
  }
  return buf === undefined ? s : buf + s.slice(i);
}

function disabled(fn: string, option: string): Error {
  return goError(
    `${fn} is disabled: Ripple templates do not read the ${option === 'env' ? 'process environment' : 'network'} unless ` +
      `FuncOptions.${option} is set (ripple template: ${option === 'env' ? '--env NAME=VALUE or --allow-env' : '--host NAME=IP'})`,
  );
}

/** osFuncs returns env, expandenv and getHostByName bound to the injected environment and resolver. */
export function osFuncs(o: ResolvedOptions): GoFunc[] {
  const getenv = (name: string): string => {
    if (!o.env) throw disabled('env', 'env');
    return Object.hasOwn(o.env, name) ? o.env[name] : '';
  };
  return [
    defineFunc('env', '(string) string', getenv),
    defineFunc('expandenv', '(string) string', (s: string) => {
      if (!o.env) throw disabled('expandenv', 'env');
      return expandEnv(s, getenv);
    }),
    defineFunc('getHostByName', '(string) string', (name: string) => {
      if (!o.resolveHost) throw disabled('getHostByName', 'resolveHost');
      const addrs = o.resolveHost(name);
      if (addrs.length === 0) throw goError('invalid argument to Intn');
      return addrs[randomInt(o, addrs.length)];
    }),
  ];
}
