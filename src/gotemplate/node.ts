// node.ts: the parse tree, a port of Go's text/template/parse/node.go. The set of node types is closed (the
// `Node` union); String() reproduces Go's text for each node because execution errors quote it
// (`executing "t" at <.Resource.x>`).
import type { GoValue } from './value.js';
import { quote } from './strconv.js';

/** NodeType identifies the type of a parse tree node. Go: node.go NodeType. */
export const enum NodeType {
  Text, // Plain text.
  Action, // A non-control action such as a field evaluation.
  Bool, // A boolean constant.
  Chain, // A sequence of field accesses.
  Command, // An element of a pipeline.
  Dot, // The cursor, dot.
  Else, // An else action. Not added to tree.
  End, // An end action. Not added to tree.
  Field, // A field or method name.
  Identifier, // An identifier; always a function name.
  If, // An if action.
  List, // A list of Nodes.
  Nil, // An untyped nil constant.
  Number, // A numerical constant.
  Pipe, // A pipeline of commands.
  Range, // A range action.
  String, // A string constant.
  Template, // A template invocation action.
  Variable, // A $ variable.
  With, // A with action.
  Comment, // A comment.
  Break, // A break action.
  Continue, // A continue action.
}

/** TreeRef is what a node needs from its tree: the text and name for error positions. */
export interface TreeRef {
  readonly text: string;
  readonly parseName: string;
}

/** Node is an element in the parse tree. */
export type Node =
  | ListNode
  | TextNode
  | CommentNode
  | PipeNode
  | ActionNode
  | CommandNode
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | EndNode
  | ElseNode
  | IfNode
  | RangeNode
  | WithNode
  | BreakNode
  | ContinueNode
  | TemplateNode;

/** ListNode holds a sequence of nodes. */
export class ListNode {
  readonly type = NodeType.List;
  readonly nodes: Node[] = [];
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
  ) {}
  append(n: Node): void {
    this.nodes.push(n);
  }
  toString(): string {
    let s = '';
    for (const n of this.nodes) s += n.toString();
    return s;
  }
}

/** TextNode holds plain text. */
export class TextNode {
  readonly type = NodeType.Text;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly text: string,
  ) {}
  toString(): string {
    return this.text;
  }
}

/** CommentNode holds a comment. */
export class CommentNode {
  readonly type = NodeType.Comment;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly text: string,
  ) {}
  toString(): string {
    return '{{' + this.text + '}}';
  }
}

/** PipeNode holds a pipeline with optional declaration. */
export class PipeNode {
  readonly type = NodeType.Pipe;
  isAssign = false; // The variables are being assigned, not declared.
  readonly decl: VariableNode[] = []; // Variables in lexical order.
  readonly cmds: CommandNode[] = []; // The commands in lexical order.
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
  ) {}
  append(c: CommandNode): void {
    this.cmds.push(c);
  }
  toString(): string {
    let s = '';
    if (this.decl.length > 0) {
      s = this.decl.map(String).join(', ');
      s += this.isAssign ? ' = ' : ' := ';
    }
    return s + this.cmds.map(String).join(' | ');
  }
}

/** ActionNode holds an action (something bounded by delimiters). Control actions have their own nodes. */
export class ActionNode {
  readonly type = NodeType.Action;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
    readonly pipe: PipeNode,
  ) {}
  toString(): string {
    return '{{' + this.pipe.toString() + '}}';
  }
}

/** CommandNode holds a command (a pipeline inside an evaluating action). */
export class CommandNode {
  readonly type = NodeType.Command;
  readonly args: Node[] = []; // Arguments in lexical order: Identifier, field, or constant.
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
  ) {}
  append(arg: Node): void {
    this.args.push(arg);
  }
  toString(): string {
    return this.args.map((a) => (a.type === NodeType.Pipe ? '(' + a.toString() + ')' : a.toString())).join(' ');
  }
}

/** IdentifierNode holds an identifier (always a function name). */
export class IdentifierNode {
  readonly type = NodeType.Identifier;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly ident: string,
  ) {}
  toString(): string {
    return this.ident;
  }
}

/** VariableNode holds a list of variable names, possibly with chained field accesses. The dollar sign is part of the (first) name. */
export class VariableNode {
  readonly type = NodeType.Variable;
  readonly ident: string[]; // Variable name and fields in lexical order.
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    ident: string,
  ) {
    this.ident = ident.split('.');
  }
  toString(): string {
    return this.ident.join('.');
  }
}

/** DotNode holds the special identifier '.'. */
export class DotNode {
  readonly type = NodeType.Dot;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
  ) {}
  toString(): string {
    return '.';
  }
}

/** NilNode holds the special identifier 'nil' representing an untyped nil constant. */
export class NilNode {
  readonly type = NodeType.Nil;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
  ) {}
  toString(): string {
    return 'nil';
  }
}

/** FieldNode holds a field (identifier starting with '.'). The names may be chained ('.x.y'). The period is dropped from each ident. */
export class FieldNode {
  readonly type = NodeType.Field;
  readonly ident: string[]; // The identifiers in lexical order.
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    ident: string,
  ) {
    this.ident = ident.slice(1).split('.'); // [1:] to drop leading period
  }
  toString(): string {
    return '.' + this.ident.join('.');
  }
}

/** ChainNode holds a term followed by a chain of field accesses (identifier starting with '.'). */
export class ChainNode {
  readonly type = NodeType.Chain;
  readonly field: string[] = []; // The identifiers in lexical order.
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly node: Node,
  ) {}
  /** add adds the named field (which should start with a period) to the end of the chain. */
  add(field: string): void {
    if (field.length === 0 || field[0] !== '.') throw new Error('no dot in field');
    field = field.slice(1); // Remove leading dot.
    if (field === '') throw new Error('empty field');
    this.field.push(field);
  }
  toString(): string {
    const s = this.node.type === NodeType.Pipe ? '(' + this.node.toString() + ')' : this.node.toString();
    return s + this.field.map((f) => '.' + f).join('');
  }
}

/** BoolNode holds a boolean constant. */
export class BoolNode {
  readonly type = NodeType.Bool;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly value: boolean,
  ) {}
  toString(): string {
    return this.value ? 'true' : 'false';
  }
}

/**
 * NumberNode holds a number: signed or unsigned integer, float, or complex. The value is parsed and stored under all
 * the types that can represent the value. This simulates in a small amount of code the behavior of Go's ideal
 * constants.
 */
export class NumberNode {
  readonly type = NodeType.Number;
  isInt = false; // Number has an integral value.
  isUint = false; // Number has an unsigned integral value.
  isFloat = false; // Number has a floating-point value.
  isComplex = false; // Number is complex.
  int64 = 0n; // The signed integer value.
  uint64 = 0n; // The unsigned integer value.
  float64 = 0; // The floating-point value.
  complexRe = 0; // The complex value (real part).
  complexIm = 0; // The complex value (imaginary part).
  /** The value as an untyped constant evaluates (exec.go idealConstant), precomputed by the executor. */
  ideal: GoValue | undefined;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly text: string, // The original textual representation from the input.
  ) {}
  toString(): string {
    return this.text;
  }
}

/** StringNode holds a string constant. The value has been "unquoted". */
export class StringNode {
  readonly type = NodeType.String;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly quoted: string, // The original text of the string, with quotes.
    readonly text: string, // The string, after quote processing.
  ) {}
  toString(): string {
    return this.quoted;
  }
}

/** EndNode represents an {{end}} action. It does not appear in the final parse tree. */
export class EndNode {
  readonly type = NodeType.End;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
  ) {}
  toString(): string {
    return '{{end}}';
  }
}

/** ElseNode represents an {{else}} action. Does not appear in the final tree. */
export class ElseNode {
  readonly type = NodeType.Else;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
  ) {}
  toString(): string {
    return '{{else}}';
  }
}

/** BranchFields is the common representation of if, range, and with. Go: node.go BranchNode. */
abstract class BranchNode {
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
    readonly pipe: PipeNode, // The pipeline to be evaluated.
    readonly list: ListNode, // What to execute if the value is non-empty.
    readonly elseList: ListNode | null, // What to execute if the value is empty (null if absent).
  ) {}
  abstract readonly keyword: string;
  toString(): string {
    let s = '{{' + this.keyword + ' ' + this.pipe.toString() + '}}' + this.list.toString();
    if (this.elseList !== null) s += '{{else}}' + this.elseList.toString();
    return s + '{{end}}';
  }
}

/** IfNode represents an {{if}} action and its commands. */
export class IfNode extends BranchNode {
  readonly type = NodeType.If;
  readonly keyword = 'if';
}

/** RangeNode represents a {{range}} action and its commands. */
export class RangeNode extends BranchNode {
  readonly type = NodeType.Range;
  readonly keyword = 'range';
}

/** WithNode represents a {{with}} action and its commands. */
export class WithNode extends BranchNode {
  readonly type = NodeType.With;
  readonly keyword = 'with';
}

/** BreakNode represents a {{break}} action. */
export class BreakNode {
  readonly type = NodeType.Break;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
  ) {}
  toString(): string {
    return '{{break}}';
  }
}

/** ContinueNode represents a {{continue}} action. */
export class ContinueNode {
  readonly type = NodeType.Continue;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
  ) {}
  toString(): string {
    return '{{continue}}';
  }
}

/** TemplateNode represents a {{template}} action. */
export class TemplateNode {
  readonly type = NodeType.Template;
  constructor(
    readonly tr: TreeRef,
    readonly pos: number,
    readonly line: number,
    readonly name: string, // The name of the template (unquoted).
    readonly pipe: PipeNode | null, // The command to evaluate as dot for the template.
  ) {}
  toString(): string {
    return '{{template ' + quote(this.name) + (this.pipe !== null ? ' ' + this.pipe.toString() : '') + '}}';
  }
}

// bytes.TrimSpace's notion of space: unicode.IsSpace.
const goSpaceOnly = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** isEmptyTree reports whether this tree (node) is empty of everything but space or comments. Go: parse.go IsEmptyTree. */
export function isEmptyTree(n: Node | null): boolean {
  if (n === null) return true;
  switch (n.type) {
    case NodeType.Comment:
      return true;
    case NodeType.List:
      return n.nodes.every(isEmptyTree);
    case NodeType.Text:
      return goSpaceOnly.test(n.text);
    case NodeType.Action:
    case NodeType.If:
    case NodeType.Range:
    case NodeType.Template:
    case NodeType.With:
      return false;
    default:
      throw new Error('unknown node: ' + n.toString());
  }
}
