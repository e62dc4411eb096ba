// html.ts: an approximation of html/template for the one context Sveltos needs. libsveltos renders
// eventSourceName and templateResourceRefs names with html/template; those templates are plain text (no tags), so
// every action sits in HTML text context, where html/template pipes the action's value through its HTML escaper.
// We apply that escaper (Go: html/template html.go htmlEscaper, content.go stringify) to each printed value.
//
// Also modelled, as html/template does in text context (Go: html/template escape.go escapeAction,
// ensurePipelineContains, escapeTree): a pipeline ending in the predefined escaper `html` is printed as it is (the
// escaper is not applied twice); one ending in `urlquery` is HTML-escaped after it; `html`/`urlquery` anywhere else
// in a pipeline, and a {{template}} naming no template, are escaping-time errors ("html/template:NAME:L:C: …").
//
// Not modelled (deliberately): context changes caused by markup in the template text (tags, attributes, <script>,
// URLs), escaping-time errors such as "ends in a non-text context", and the typed-content types (template.HTML…).
import type { GoValue } from './value.js';
import { formatValue } from './fmt.js';
import { quote } from './strconv.js';
import { NodeType, type ActionNode, type Node } from './node.js';
import { errorContext, type Tree } from './parse.js';

// Go: html/template html.go htmlReplacementTable.
const replacement: Readonly<Record<string, string>> = {
  '\0': '\ufffd',
  '"': '&#34;',
  '&': '&amp;',
  "'": '&#39;',
  '+': '&#43;',
  '<': '&lt;',
  '>': '&gt;',
};

/** htmlReplace escapes the characters html/template escapes in HTML text. */
export function htmlReplace(s: string): string {
  if (!/["&'+<>\0]/.test(s)) return s;
  return s.replace(/["&'+<>\0]/g, (c) => replacement[c]);
}

/**
 * htmlEscapeValue is what html/template prints for an action in text context: stringify (a nil or missing value
 * prints as nothing, not "<no value>") followed by the HTML escaper.
 */
export function htmlEscapeValue(v: GoValue): string {
  if (v === undefined || v === null) return ''; // untyped nil arguments are skipped (Go issue 25875)
  return htmlReplace(typeof v === 'string' ? v : formatValue(v));
}

/** endsWithHTMLEscaper reports whether an action's pipeline ends in `html`, whose output html/template keeps as is. */
export function endsWithHTMLEscaper(n: ActionNode): boolean {
  const cmds = n.pipe.cmds;
  const first = cmds[cmds.length - 1].args[0];
  return first.type === NodeType.Identifier && first.ident === 'html';
}

/**
 * checkHTMLEscaping runs the checks html/template's escaper makes, in text context, over the template about to be
 * executed and every template it calls; it returns Go's error text for the first failure, or null.
 */
export function checkHTMLEscaping(root: Tree, lookup: (name: string) => Tree | null | undefined): string | null {
  const seen = new Set<Tree>();
  const visit = (n: Node | null): string | null => {
    if (n === null) return null;
    switch (n.type) {
      case NodeType.List:
        for (const c of n.nodes) {
          const err = visit(c);
          if (err !== null) return err;
        }
        return null;
      case NodeType.Action: {
        if (n.pipe.decl.length !== 0) return null; // A local variable assignment, not an interpolation.
        const cmds = n.pipe.cmds;
        for (let pos = 0; pos < cmds.length; pos++) {
          const a = cmds[pos].args[0];
          if (a.type === NodeType.Identifier && (a.ident === 'html' || a.ident === 'urlquery') && pos < cmds.length - 1) {
            return `html/template:${errorContext(n)[0]}: predefined escaper ${quote(a.ident)} disallowed in template`;
          }
        }
        return null;
      }
      case NodeType.If:
      case NodeType.Range:
      case NodeType.With:
        return visit(n.list) ?? visit(n.elseList);
      case NodeType.Template: {
        const t = lookup(n.name);
        if (t === undefined) return `html/template:${errorContext(n)[0]}: no such template ${quote(n.name)}`;
        if (t === null || t.root === null) return `html/template:${errorContext(n)[0]}: ${quote(n.name)} is an incomplete or empty template`;
        return visitTree(t);
      }
      default:
        return null;
    }
  };
  const visitTree = (t: Tree): string | null => {
    if (seen.has(t)) return null;
    seen.add(t);
    return visit(t.root);
  };
  return visitTree(root);
}
