// completion: shell completion scripts for bash, zsh and fish, generated from the command table — every command
// path with its summary, and each command's flags as its usage text spells them (`-o, --output FORMAT`, `--demo NAME`,
// `-o table|wide|yaml|json`), so a new command file gets completion without registering anything. The scripts are
// static: a TAB never starts ripple.
import type { Command } from './command.js';

/** FlagSpec is one flag of a command as completion sees it. */
export interface FlagSpec {
  long: string;
  short?: string;
  /** It takes a value (`--output FORMAT`), as opposed to a switch (`--once`). */
  takesValue: boolean;
  /** The value is a path (FILE, DIR, PATH placeholders): complete file names. */
  path: boolean;
  /** The values it accepts, where they are known. */
  values: string[];
}

/** CompletionNode is a command path (`get`, `get clusters`) with what may follow it. */
export interface CompletionNode {
  path: string;
  summary: string;
  /** Next words: subcommands with their summaries. */
  children: { word: string; summary: string }[];
  flags: FlagSpec[];
  /** Values of an enum positional argument spelled in the synopsis (`ripple completion bash|zsh|fish`). */
  args: string[];
}

const PATH_PLACEHOLDER = /^(FILE|DIR|PATH|KUBECONFIG|FILE\|DIR)\b/;

/** flagsOf reads a command's flags from its usage text, with the values of enum flags from `a|b|c` spellings and
 * from known sets (extra: flag name → values, e.g. the demo names or log levels). */
export function flagsOf(text: string, extra: Readonly<Record<string, readonly string[]>> = {}): FlagSpec[] {
  // Only the synopsis and the flag table: prose and examples mention other commands' flags too.
  const lines = text.split('\n');
  const end = lines.findIndex((l) => l.trim() === '');
  const usage = [...lines.slice(0, end < 0 ? lines.length : end), ...lines.filter((l) => /^\s{1,8}-/.test(l))].join('\n');
  const flags = new Map<string, FlagSpec>();
  // `-o, --output FORMAT`, `--demo NAME`, `[-o table|wide|yaml|json]`, `--durability process|power`, `--once`.
  const re = /(?:^|[\s[(|])(?:-([a-zA-Z]),?\s+)?--([a-z][a-z0-9-]*)(?:[ =]([^\s\]),]+))?/g;
  for (const m of usage.matchAll(re)) {
    const [, short, long, arg] = m;
    const cur = flags.get(long) ?? { long, takesValue: false, path: false, values: [] };
    if (short) cur.short = short;
    if (arg !== undefined) {
      const isEnum = /^[a-z0-9][a-z0-9-]*(\|[a-z0-9][a-z0-9-]*)+$/.test(arg);
      const isPlaceholder = /^[A-Z][A-Z0-9_]*([[:|=.,/].*)?$/.test(arg);
      if (isEnum || isPlaceholder) cur.takesValue = true;
      if (isEnum) for (const v of arg.split('|')) if (!cur.values.includes(v)) cur.values.push(v);
      if (isPlaceholder && PATH_PLACEHOLDER.test(arg)) cur.path = true;
    }
    flags.set(long, cur);
  }
  // `[-o table|wide|yaml|json]`: a short flag's values, spelled without its long name.
  for (const m of usage.matchAll(/(?:^|[\s[(|])-([a-zA-Z])[ =]([a-z0-9][a-z0-9-]*(?:\|[a-z0-9][a-z0-9-]*)+)(?=[\s\]),]|$)/g)) {
    const f = [...flags.values()].find((x) => x.short === m[1]);
    if (!f) continue;
    f.takesValue = true;
    for (const v of m[2].split('|')) if (!f.values.includes(v)) f.values.push(v);
  }
  for (const [name, values] of Object.entries(extra)) {
    const f = flags.get(name);
    if (f) {
      f.takesValue = true;
      for (const v of values) if (!f.values.includes(v)) f.values.push(v);
    }
  }
  flags.delete('help');
  return [...flags.values()].sort((a, b) => a.long.localeCompare(b.long));
}

/** completionTree is every command path prefix (the root is '') with its children and, for commands, flags. */
export function completionTree(commands: readonly Command[], extra: Readonly<Record<string, readonly string[]>> = {}): CompletionNode[] {
  const nodes = new Map<string, CompletionNode>();
  const node = (path: string) => {
    let n = nodes.get(path);
    if (!n) nodes.set(path, (n = { path, summary: '', children: [], flags: [], args: [] }));
    return n;
  };
  node('');
  for (const c of commands) {
    for (let i = 0; i < c.path.length; i++) {
      const parent = node(c.path.slice(0, i).join(' '));
      const word = c.path[i];
      const last = i === c.path.length - 1;
      if (!parent.children.some((ch) => ch.word === word)) parent.children.push({ word, summary: last ? c.summary : `${word} commands` });
      else if (last) parent.children.find((ch) => ch.word === word)!.summary = c.summary;
      node(c.path.slice(0, i + 1).join(' '));
    }
    const n = node(c.path.join(' '));
    n.summary = c.summary;
    n.flags = flagsOf(c.usage, extra);
    const synopsisWords = c.usage.split('\n')[0].split(/\s+/);
    n.args = synopsisWords.filter((w, i) => /^[a-z0-9][a-z0-9-]*(\|[a-z0-9][a-z0-9-]*)+$/.test(w) && !synopsisWords[i - 1]?.startsWith('-')).flatMap((w) => w.split('|'));
  }
  return [...nodes.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** SHELLS are the shells `ripple completion` writes scripts for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/** Shell is one of SHELLS. */
export type Shell = (typeof SHELLS)[number];

// Quoting for each shell's single-quoted strings.
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const fishq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function flagWords(n: CompletionNode): string[] {
  return [...n.flags.flatMap((f) => [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])]), '--help'];
}

// The command-path walk every script does: the words typed so far extend the path while `path word` is a node;
// flags and their values are skipped. NODES is '|'-delimited.
function nodesList(tree: CompletionNode[]): string {
  return `|${tree.map((n) => n.path).join('|')}|`;
}

/** completionScript returns the completion script for a shell. */
export function completionScript(shell: Shell, tree: CompletionNode[]): string {
  switch (shell) {
    case 'bash':
      return bashScript(tree);
    case 'zsh':
      return zshScript(tree);
    case 'fish':
      return fishScript(tree);
  }
}

function valueCases(tree: CompletionNode[], emit: (pattern: string, f: FlagSpec) => string): string[] {
  const out: string[] = [];
  for (const n of tree) {
    for (const f of n.flags) {
      if (!f.takesValue) continue;
      const pats = [`${n.path}|--${f.long}`, ...(f.short ? [`${n.path}|-${f.short}`] : [])];
      out.push(emit(pats.map((p) => sq(p)).join('|'), f));
    }
  }
  return out;
}

function bashScript(tree: CompletionNode[]): string {
  const valueFlags = tree.flatMap((n) => n.flags.filter((f) => f.takesValue).flatMap((f) => [`${n.path}|--${f.long}`, ...(f.short ? [`${n.path}|-${f.short}`] : [])]));
  return `# bash completion for ripple — generated by \`ripple completion bash\`.
# Load it now:   source <(ripple completion bash)
# Or for good:   ripple completion bash > ~/.local/share/bash-completion/completions/ripple
_ripple() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local nodes=${sq(nodesList(tree))}
  local valued=${sq(`;${valueFlags.join(';')};`)}
  local rpath='' i w skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    if [[ $w == -* ]]; then [[ $w != *=* && $valued == *";$rpath|$w;"* ]] && skip=1; continue; fi
    [[ $nodes == *"|\${rpath:+$rpath }$w|"* ]] && rpath=\${rpath:+$rpath }$w
  done
  if [[ $cur == --*=* ]]; then prev=\${cur%%=*}; cur=\${cur#*=}; fi
  case "$rpath|$prev" in
${valueCases(tree, (pat, f) => `    ${pat}) ${f.values.length > 0 ? `COMPREPLY=($(compgen -W ${sq(f.values.join(' '))} -- "$cur"))` : f.path ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=()'}; return ;;`).join('\n')}
  esac
  local words=''
  case "$rpath" in
${tree.map((n) => `    ${sq(n.path)}) words=${sq([...n.children.map((c) => c.word), ...n.args, ...(n.path !== '' ? flagWords(n) : ['--help', '--version'])].join(' '))} ;;`).join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _ripple ripple
`;
}

function zshScript(tree: CompletionNode[]): string {
  const valueFlags = tree.flatMap((n) => n.flags.filter((f) => f.takesValue).flatMap((f) => [`${n.path}|--${f.long}`, ...(f.short ? [`${n.path}|-${f.short}`] : [])]));
  const describe = (n: CompletionNode) =>
    n.children.map((c) => sq(`${c.word.replace(/:/g, '\\:')}:${oneLine(c.summary)}`)).join(' ');
  return `#compdef ripple
# zsh completion for ripple — generated by \`ripple completion zsh\`.
# Load it now:   source <(ripple completion zsh)
# Or for good:   ripple completion zsh > "\${fpath[1]}/_ripple"   (then start a new shell)
_ripple() {
  local nodes=${sq(nodesList(tree))}
  local valued=${sq(`;${valueFlags.join(';')};`)}
  local rpath='' w cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
  integer i skip=0
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if ((skip)); then skip=0; continue; fi
    if [[ $w == -* ]]; then [[ $w != *=* && $valued == *";$rpath|$w;"* ]] && skip=1; continue; fi
    [[ $nodes == *"|\${rpath:+$rpath }$w|"* ]] && rpath=\${rpath:+$rpath }$w
  done
  case "$rpath|$prev" in
${valueCases(tree, (pat, f) => `    ${pat}) ${f.values.length > 0 ? `compadd -- ${f.values.map(sq).join(' ')}` : f.path ? '_files' : 'return 1'}; return ;;`).join('\n')}
  esac
  local -a subs args flags
  case "$rpath" in
${tree.map((n) => `    ${sq(n.path)}) subs=(${describe(n)}); args=(${n.args.map(sq).join(' ')}); flags=(${(n.path === '' ? ['--help', '--version'] : flagWords(n)).map(sq).join(' ')}) ;;`).join('\n')}
  esac
  if [[ $cur == -* ]]; then
    compadd -- $flags
  elif (( \${#subs} )); then
    _describe -t commands 'ripple command' subs
  elif (( \${#args} )); then
    compadd -- $args
  else
    _files
  fi
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _ripple "$@"
else
  compdef _ripple ripple
fi
`;
}

function fishScript(tree: CompletionNode[]): string {
  const lines: string[] = [
    '# fish completion for ripple — generated by `ripple completion fish`.',
    '# Load it now:   ripple completion fish | source',
    '# Or for good:   ripple completion fish > ~/.config/fish/completions/ripple.fish',
    '# __ripple_is PATH: the words typed so far select the command path PATH (flags are skipped).',
    'function __ripple_is',
    `    set -l nodes ${fishq(nodesList(tree))}`,
    '    set -l rpath ""',
    '    for w in (commandline -opc)[2..-1]',
    '        string match -q -- "-*" $w; and continue',
    '        set -l cand $w',
    '        test -n "$rpath"; and set cand "$rpath $w"',
    '        string match -q -- "*|$cand|*" $nodes; and set rpath $cand',
    '    end',
    '    test "$rpath" = "$argv[1]"',
    'end',
    'complete -c ripple -f',
  ];
  for (const n of tree) {
    const cond = fishq(`__ripple_is ${fishq(n.path)}`);
    for (const c of n.children) lines.push(`complete -c ripple -n ${cond} -a ${fishq(c.word)} -d ${fishq(oneLine(c.summary))}`);
    if (n.args.length > 0) lines.push(`complete -c ripple -n ${cond} -a ${fishq(n.args.join(' '))}`);
    if (n.path === '') {
      lines.push(`complete -c ripple -n ${cond} -l version -d 'Print the version'`);
      continue;
    }
    for (const f of n.flags) {
      const parts = [`complete -c ripple -n ${cond} -l ${f.long}`];
      if (f.short) parts.push(`-s ${f.short}`);
      if (f.takesValue) parts.push(f.values.length > 0 ? `-x -a ${fishq(f.values.join(' '))}` : f.path ? '-r -F' : '-x');
      lines.push(parts.join(' '));
    }
  }
  return lines.join('\n') + '\n';
}
