// gotemplate: a port of Go's text/template (lexer, parser, executor) with Go's value model and fmt printing.
export * from './value.js';
