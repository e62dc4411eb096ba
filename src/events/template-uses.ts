// template-uses.ts: which template data a parsed template reads. The event manager instantiates ConfigMaps/Secrets
// that older Sveltos releases rendered with event data although they carry no `projectsveltos.io/instantiate`
// annotation (seeds 001, 003, 004); whether a template needs the event stage is decided from its parse tree — a
// field whose first identifier, evaluated against the root data, is `.Resource`, `.Resources`, `.MatchingResource(s)`
// or `.CloudEvent(s)` — never from a string search (a comment or a quoted "{{ .Resource }}" does not count).
import type { Template } from '../gotemplate/index.js';

// The parse-tree types, reached through the Template API (gotemplate exports the Template, not its node classes).
type Tree = NonNullable<Template['tree']>;
type ListNode = NonNullable<Tree['root']>;
type Node = ListNode['nodes'][number];

/** EVENT_DATA_FIELDS are the top-level template data fields only the event stage provides. */
export const EVENT_DATA_FIELDS: ReadonlySet<string> = new Set([
  'Resource',
  'Resources',
  'MatchingResource',
  'MatchingResources',
  'CloudEvent',
  'CloudEvents',
]);

/**
 * eventDataFields returns the event-data fields (e.g. `.Resource`) a parsed template reads from its root data,
 * sorted. Inside `range`/`with` bodies dot is rebound, so a field there is relative to the element and does not
 * count; `$` always means the root. Templates defined with {{define}}/{{block}} are walked as if called with the root.
 */
export function eventDataFields(t: Template): string[] {
  const found = new Set<string>();
  for (const tmpl of t.templates()) {
    const root = tmpl.tree?.root;
    if (root) walk(root, true, found);
  }
  return [...found].sort().map((f) => '.' + f);
}

function note(first: string | undefined, found: Set<string>): void {
  if (first !== undefined && EVENT_DATA_FIELDS.has(first)) found.add(first);
}

// walk visits a node; dotIsRoot tells whether `.` is the template's data at this point.
function walk(n: Node | null | undefined, dotIsRoot: boolean, found: Set<string>): void {
  if (n === null || n === undefined) return;
  if ('nodes' in n) {
    // ListNode
    for (const c of n.nodes) walk(c, dotIsRoot, found);
  } else if ('keyword' in n) {
    // IfNode, RangeNode, WithNode: the pipeline and the else branch see the outer dot; range/with rebind it inside.
    walkPipe(n.pipe, dotIsRoot, found);
    walk(n.list, n.keyword === 'if' ? dotIsRoot : false, found);
    walk(n.elseList, dotIsRoot, found);
  } else if ('cmds' in n) {
    walkPipe(n, dotIsRoot, found);
  } else if ('args' in n) {
    // CommandNode
    for (const a of n.args) walk(a, dotIsRoot, found);
  } else if ('field' in n && 'node' in n) {
    // ChainNode: `(.).Resource` or `(pipeline).x`
    if (isDot(n.node)) {
      if (dotIsRoot) note(n.field[0], found);
    } else walk(n.node, dotIsRoot, found);
  } else if ('ident' in n) {
    if (!Array.isArray(n.ident)) return; // IdentifierNode: a function name
    if (n.ident[0]?.startsWith('$')) {
      // VariableNode: `$.Resource…` reads the root; other variables were bound from pipelines already walked.
      if (n.ident[0] === '$') note(n.ident[1], found);
    } else if (dotIsRoot) {
      note(n.ident[0], found); // FieldNode `.Resource.metadata.name`
    }
  } else if ('pipe' in n) {
    // ActionNode, TemplateNode (its pipeline is evaluated with the current dot)
    walkPipe(n.pipe, dotIsRoot, found);
  }
}

function walkPipe(p: { cmds: readonly Node[] } | null, dotIsRoot: boolean, found: Set<string>): void {
  if (p === null) return;
  for (const c of p.cmds) walk(c, dotIsRoot, found);
}

function isDot(n: Node): boolean {
  // `(.)` parses as a pipeline of one command whose only argument is dot.
  if ('cmds' in n) return n.decl.length === 0 && n.cmds.length === 1 && n.cmds[0].args.length === 1 && isDot(n.cmds[0].args[0]);
  return !('ident' in n) && !('nodes' in n) && !('cmds' in n) && !('args' in n) && !('pipe' in n) && String(n) === '.';
}
