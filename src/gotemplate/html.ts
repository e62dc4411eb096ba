// html.ts: an approximation of html/template for the one context Sveltos needs. libsveltos renders
// eventSourceName and templateResourceRefs names with html/template; those templates are plain text (no tags), so
// every action sits in HTML text context, where html/template pipes the action's value through its HTML escaper.
// We apply that escaper (Go: html/template html.go htmlEscaper, content.go stringify) to each printed value.
//
// Not modelled (deliberately): context changes caused by markup in the template text (tags, attributes, <script>,
// URLs), escaping-time errors such as "ends in a non-text context", and the typed-content types (template.HTML…).
import type { GoValue } from './value.js';
import { formatValue } from './fmt.js';

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
