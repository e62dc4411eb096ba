// parse.ts: the template parser, a port of Go's text/template/parse/parse.go: a recursive-descent parser over the
// lexer's items with three-token lookahead, producing a Tree per template ({{define}} and {{block}} add more trees
// to the set). Errors carry Go's text and position: `template: NAME:LINE: message`.
import { lex, itemString, ItemType, type Item, type Lexer } from './lex.js';
import {
  ActionNode,
  BoolNode,
  BreakNode,
  ChainNode,
  CommandNode,
  CommentNode,
  ContinueNode,
  DotNode,
  ElseNode,
  EndNode,
  FieldNode,
  IdentifierNode,
  IfNode,
  isEmptyTree,
  ListNode,
  NilNode,
  NodeType,
  NumberNode,
  PipeNode,
  RangeNode,
  StringNode,
  TemplateNode,
  TextNode,
  VariableNode,
  WithNode,
  type Node,
  type TreeRef,
} from './node.js';
import { parseFloat64, parseInt64, parseUint64, unquote, unquoteChar, UnquoteError, quote } from './strconv.js';
import { utf8Len } from './utf8.js';

/** ParseError is a parse failure with Go's exact message (`template: NAME:LINE: …`). */
export class ParseError extends Error {
  override readonly name = 'ParseError';
}

/** FuncNames is one function map as the parser sees it: only the names matter. */
export type FuncNames = Readonly<Record<string, unknown>> | ReadonlySet<string>;

/** Mode controls parser behavior. Go: parse.go Mode. */
export const enum Mode {
  ParseComments = 1, // parse comments and add them to AST
  SkipFuncCheck = 2, // do not check that functions are defined
}

/** Tree is the representation of a single parsed template. */
export class Tree implements TreeRef {
  name: string; // name of the template represented by the tree.
  parseName = ''; // name of the top-level template during parsing, for error messages.
  root: ListNode | null = null; // top-level root of the tree.
  mode = 0; // parsing mode.
  text = ''; // text parsed to create the template (or its parent)
  // Parsing only; cleared after parse.
  private funcs: readonly FuncNames[] = [];
  private lex: Lexer | null = null;
  private readonly token: Item[] = [emptyItem(), emptyItem(), emptyItem()]; // three-token lookahead for parser.
  private peekCount = 0;
  private vars: string[] = []; // variables defined at the moment.
  private treeSet: Map<string, Tree> = new Map();
  private actionLine = 0; // line of left delim starting action
  private rangeDepth = 0;

  constructor(name: string, funcs: readonly FuncNames[] = []) {
    this.name = name;
    this.funcs = funcs;
  }

  /** next returns the next token. */
  private next(): Item {
    if (this.peekCount > 0) this.peekCount--;
    else this.token[0] = this.lex!.nextItem();
    return this.token[this.peekCount];
  }

  /** backup backs the input stream up one token. */
  private backup(): void {
    this.peekCount++;
  }

  /** backup2 backs the input stream up two tokens. The zeroth token is already there. */
  private backup2(t1: Item): void {
    this.token[1] = t1;
    this.peekCount = 2;
  }

  /** backup3 backs the input stream up three tokens. The zeroth token is already there. */
  private backup3(t2: Item, t1: Item): void {
    // Reverse order: we're pushing back.
    this.token[1] = t1;
    this.token[2] = t2;
    this.peekCount = 3;
  }

  /** peek returns but does not consume the next token. */
  private peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1];
    this.peekCount = 1;
    this.token[0] = this.lex!.nextItem();
    return this.token[0];
  }

  /** nextNonSpace returns the next non-space token. */
  private nextNonSpace(): Item {
    let token: Item;
    for (;;) {
      token = this.next();
      if (token.typ !== ItemType.Space) break;
    }
    return token;
  }

  /** peekNonSpace returns but does not consume the next non-space token. */
  private peekNonSpace(): Item {
    const token = this.nextNonSpace();
    this.backup();
    return token;
  }

  /** errorf formats the error and terminates processing. */
  errorf(message: string): never {
    this.root = null;
    throw new ParseError(`template: ${this.parseName}:${this.token[0].line}: ${message}`);
  }

  /** expect consumes the next token and guarantees it has the required type. */
  private expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== expected) this.unexpected(token, context);
    return token;
  }

  /** expectOneOf consumes the next token and guarantees it has one of the required types. */
  private expectOneOf(expected1: ItemType, expected2: ItemType, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== expected1 && token.typ !== expected2) this.unexpected(token, context);
    return token;
  }

  /** unexpected complains about the token and terminates processing. */
  private unexpected(token: Item, context: string): never {
    if (token.typ === ItemType.Error) {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`;
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length); // avoid "action in action"
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  /** startParse initializes the parser, using the lexer. */
  private startParse(funcs: readonly FuncNames[], lexer: Lexer, treeSet: Map<string, Tree>): void {
    this.root = null;
    this.lex = lexer;
    this.vars = ['$'];
    this.funcs = funcs;
    this.treeSet = treeSet;
    lexer.options = {
      emitComment: (this.mode & Mode.ParseComments) !== 0,
      breakOK: !this.hasFunction('break'),
      continueOK: !this.hasFunction('continue'),
    };
  }

  /** stopParse terminates parsing. */
  private stopParse(): void {
    this.lex = null;
    this.vars = [];
    this.funcs = [];
    this.treeSet = new Map();
  }

  /**
   * parse parses the template definition string to construct a representation of the template for execution. If
   * either action delimiter string is empty, the default ("{{" or "}}") is used. Embedded template definitions are
   * added to the treeSet map. Throws ParseError.
   */
  parse(text: string, leftDelim: string, rightDelim: string, treeSet: Map<string, Tree>, funcs: readonly FuncNames[]): Tree {
    try {
      this.parseName = this.name;
      const lexer = lex(this.name, text, leftDelim, rightDelim);
      this.startParse(funcs, lexer, treeSet);
      this.text = text;
      this.parseTop();
      this.add();
      this.stopParse();
      return this;
    } catch (e) {
      this.stopParse();
      throw e;
    }
  }

  /** add adds tree to t.treeSet. */
  private add(): void {
    const tree = this.treeSet.get(this.name);
    if (tree === undefined || isEmptyTree(tree.root)) {
      this.treeSet.set(this.name, this);
      return;
    }
    if (!isEmptyTree(this.root)) this.errorf(`template: multiple definition of template ${quote(this.name)}`);
  }

  /**
   * parseTop is the top-level parser for a template, essentially the same as itemList except it also parses
   * {{define}} actions. It runs to EOF. Go: parse.go parse.
   */
  private parseTop(): void {
    this.root = this.newList(this.peek().pos);
    while (this.peek().typ !== ItemType.EOF) {
      if (this.peek().typ === ItemType.LeftDelim) {
        const delim = this.next();
        if (this.nextNonSpace().typ === ItemType.Define) {
          const newT = new Tree('definition'); // name will be updated once we know it.
          newT.text = this.text;
          newT.mode = this.mode;
          newT.parseName = this.parseName;
          newT.startParse(this.funcs, this.lex!, this.treeSet);
          newT.parseDefinition();
          continue;
        }
        this.backup2(delim);
      }
      const n = this.textOrAction();
      if (n.type === NodeType.End || n.type === NodeType.Else) this.errorf(`unexpected ${n.toString()}`);
      else this.root.append(n);
    }
  }

  /**
   * parseDefinition parses a {{define}} ...  {{end}} template definition and installs the definition in
   * t.treeSet. The "define" keyword has already been scanned.
   */
  private parseDefinition(): void {
    const context = 'define clause';
    const name = this.expectOneOf(ItemType.String, ItemType.RawString, context);
    this.name = this.unquoteOrError(name.val);
    this.expect(ItemType.RightDelim, context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.type !== NodeType.End) this.errorf(`unexpected ${end.toString()} in ${context}`);
    this.add();
    this.stopParse();
  }

  // itemList:
  //
  //	textOrAction*
  //
  // Terminates at {{end}} or {{else}}, returned separately.
  private itemList(): [ListNode, Node] {
    const list = this.newList(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.type === NodeType.End || n.type === NodeType.Else) return [list, n];
      list.append(n);
    }
    this.errorf('unexpected EOF');
  }

  // textOrAction:
  //
  //	text | comment | action
  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Text:
        return new TextNode(this, token.pos, token.val);
      case ItemType.LeftDelim:
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      case ItemType.Comment:
        return new CommentNode(this, token.pos, token.val);
      default:
        this.unexpected(token, 'input');
    }
  }

  // Action:
  //
  //	control
  //	command ("|" command)*
  //
  // Left delim is past. Now get actions.
  // First word could be a keyword such as range.
  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
        return this.breakControl(token.pos, token.line);
      case ItemType.Continue:
        return this.continueControl(token.pos, token.line);
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return this.endControl();
      case ItemType.If:
        return this.ifControl();
      case ItemType.Range:
        return this.rangeControl();
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.withControl();
    }
    this.backup();
    const tok = this.peek();
    // Do not pop variables; they persist until "end".
    return new ActionNode(this, tok.pos, tok.line, this.pipeline('command', ItemType.RightDelim));
  }

  // Break:
  //
  //	{{break}}
  //
  // Break keyword is past.
  private breakControl(pos: number, line: number): Node {
    const token = this.nextNonSpace();
    if (token.typ !== ItemType.RightDelim) this.unexpected(token, '{{break}}');
    if (this.rangeDepth === 0) this.errorf('{{break}} outside {{range}}');
    return new BreakNode(this, pos, line);
  }

  // Continue:
  //
  //	{{continue}}
  //
  // Continue keyword is past.
  private continueControl(pos: number, line: number): Node {
    const token = this.nextNonSpace();
    if (token.typ !== ItemType.RightDelim) this.unexpected(token, '{{continue}}');
    if (this.rangeDepth === 0) this.errorf('{{continue}} outside {{range}}');
    return new ContinueNode(this, pos, line);
  }

  // Pipeline:
  //
  //	declarations? command ('|' command)*
  private pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe = new PipeNode(this, token.pos, token.line);
    // Are there declarations or assignments?
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ === ItemType.Variable) {
        this.next();
        // Since space is a token, we need 3-token look-ahead here in the worst case: in "$x foo" we need to read
        // "foo" (as opposed to ":=") to know that $x is an argument variable rather than a declaration. So remember
        // the token adjacent to the variable so we can push it back if necessary.
        const tokenAfterVariable = this.peek();
        const next = this.peekNonSpace();
        if (next.typ === ItemType.Assign || next.typ === ItemType.Declare) {
          pipe.isAssign = next.typ === ItemType.Assign;
          this.nextNonSpace();
          pipe.decl.push(new VariableNode(this, v.pos, v.val));
          this.vars.push(v.val);
        } else if (next.typ === ItemType.Char && next.val === ',') {
          this.nextNonSpace();
          pipe.decl.push(new VariableNode(this, v.pos, v.val));
          this.vars.push(v.val);
          if (context === 'range' && pipe.decl.length < 2) {
            switch (this.peekNonSpace().typ) {
              case ItemType.Variable:
              case ItemType.RightDelim:
              case ItemType.RightParen:
                // second initialized variable in a range pipeline
                continue decls;
              default:
                this.errorf('range can only initialize variables');
            }
          }
          this.errorf(`too many declarations in ${context}`);
        } else if (tokenAfterVariable.typ === ItemType.Space) {
          this.backup3(v, tokenAfterVariable);
        } else {
          this.backup2(v);
        }
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      switch (token.typ) {
        case end:
          // At this point, the pipeline is complete
          this.checkPipeline(pipe, context);
          return pipe;
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.append(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    // Reject empty pipelines
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    // Only the first command of a pipeline can start with a non executable operand
    for (let i = 1; i < pipe.cmds.length; i++) {
      switch (pipe.cmds[i].args[0].type) {
        case NodeType.Bool:
        case NodeType.Dot:
        case NodeType.Nil:
        case NodeType.Number:
        case NodeType.String:
          // With A|B|C, pipeline stage 2 is B
          this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private parseControl(context: string): [number, number, PipeNode, ListNode, ListNode | null] {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, ItemType.RightDelim);
      if (context === 'range') this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === 'range') this.rangeDepth--;
      let elseList: ListNode | null = null;
      switch (next.type) {
        case NodeType.End: //done
          break;
        case NodeType.Else:
          // Special case for "else if" and "else with".
          // If the "else" is followed immediately by an "if" or "with", the elseControl will have left the "if" or
          // "with" token pending. Treat
          //	{{if a}}_{{else if b}}_{{end}}
          //  {{with a}}_{{else with b}}_{{end}}
          // as
          //	{{if a}}_{{else}}{{if b}}_{{end}}{{end}}
          //  {{with a}}_{{else}}{{with b}}_{{end}}{{end}}.
          // To do this, parse the "if" or "with" as usual and stop at it {{end}}; the subsequent{{end}} is assumed.
          // This technique works even for long if-else-if chains.
          if (context === 'if' && this.peek().typ === ItemType.If) {
            this.next(); // Consume the "if" token.
            elseList = this.newList(next.pos);
            elseList.append(this.ifControl());
          } else if (context === 'with' && this.peek().typ === ItemType.With) {
            this.next();
            elseList = this.newList(next.pos);
            elseList.append(this.withControl());
          } else {
            [elseList, next] = this.itemList();
            if (next.type !== NodeType.End) this.errorf(`expected end; found ${next.toString()}`);
          }
          break;
      }
      return [pipe.pos, pipe.line, pipe, list, elseList];
    } finally {
      this.vars.length = Math.min(this.vars.length, mark);
    }
  }

  // If:
  //
  //	{{if pipeline}} itemList {{end}}
  //	{{if pipeline}} itemList {{else}} itemList {{end}}
  //
  // If keyword is past.
  private ifControl(): Node {
    return new IfNode(this, ...this.parseControl('if'));
  }

  // Range:
  //
  //	{{range pipeline}} itemList {{end}}
  //	{{range pipeline}} itemList {{else}} itemList {{end}}
  //
  // Range keyword is past.
  private rangeControl(): Node {
    return new RangeNode(this, ...this.parseControl('range'));
  }

  // With:
  //
  //	{{with pipeline}} itemList {{end}}
  //	{{with pipeline}} itemList {{else}} itemList {{end}}
  //
  // If keyword is past.
  private withControl(): Node {
    return new WithNode(this, ...this.parseControl('with'));
  }

  // End:
  //
  //	{{end}}
  //
  // End keyword is past.
  private endControl(): Node {
    return new EndNode(this, this.expect(ItemType.RightDelim, 'end').pos);
  }

  // Else:
  //
  //	{{else}}
  //
  // Else keyword is past.
  private elseControl(): Node {
    const peek = this.peekNonSpace();
    // The "{{else if ... " and "{{else with ..." will be treated as "{{else}}{{if ..." and "{{else}}{{with ...".
    // So return the else node here.
    if (peek.typ === ItemType.If || peek.typ === ItemType.With) return new ElseNode(this, peek.pos, peek.line);
    const token = this.expect(ItemType.RightDelim, 'else');
    return new ElseNode(this, token.pos, token.line);
  }

  // Block:
  //
  //	{{block stringValue pipeline}}
  //
  // Block keyword is past.
  // The name must be something that can evaluate to a string.
  // The pipeline is mandatory.
  private blockControl(): Node {
    const context = 'block clause';
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    const block = new Tree(name); // name will be updated once we know it.
    block.text = this.text;
    block.mode = this.mode;
    block.parseName = this.parseName;
    block.startParse(this.funcs, this.lex!, this.treeSet);
    const [list, end] = block.itemList();
    block.root = list;
    if (end.type !== NodeType.End) this.errorf(`unexpected ${end.toString()} in ${context}`);
    block.add();
    block.stopParse();
    return new TemplateNode(this, token.pos, token.line, name, pipe);
  }

  // Template:
  //
  //	{{template stringValue pipeline}}
  //
  // Template keyword is past. The name must be something that can evaluate
  // to a string.
  private templateControl(): Node {
    const context = 'template clause';
    const token = this.nextNonSpace();
    const name = this.parseTemplateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== ItemType.RightDelim) {
      this.backup();
      // Do not pop variables; they persist until "end".
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return new TemplateNode(this, token.pos, token.line, name, pipe);
  }

  private parseTemplateName(token: Item, context: string): string {
    if (token.typ === ItemType.String || token.typ === ItemType.RawString) return this.unquoteOrError(token.val);
    this.unexpected(token, context);
  }

  // command:
  //
  //	operand (space operand)*
  //
  // space-separated arguments up to a pipeline character or right delimiter.
  // we consume the pipe character but leave the right delim to terminate the action.
  private command(): CommandNode {
    const cmd = new CommandNode(this, this.peekNonSpace().pos);
    loop: for (;;) {
      this.peekNonSpace(); // skip leading spaces.
      const operand = this.operand();
      if (operand !== null) cmd.append(operand);
      const token = this.next();
      switch (token.typ) {
        case ItemType.Space:
          continue loop;
        case ItemType.RightDelim:
        case ItemType.RightParen:
          this.backup();
          break;
        case ItemType.Pipe:
          // nothing here; break loop below
          break;
        default:
          this.unexpected(token, 'operand');
      }
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  // operand:
  //
  //	term .Field*
  //
  // An operand is a space-separated component of a command,
  // a term possibly followed by field accesses.
  // A nil return means the next item is not an operand.
  private operand(): Node | null {
    let node = this.term();
    if (node === null) return null;
    if (this.peek().typ === ItemType.Field) {
      const chain = new ChainNode(this, this.peek().pos, node);
      while (this.peek().typ === ItemType.Field) chain.add(this.next().val);
      // Compatibility with original API: If the term is of type NodeField or NodeVariable, just put more fields on
      // the original. Otherwise, keep the Chain node. Obvious parsing errors involving literal values are detected
      // here. More complex error cases will have to be handled at execution time.
      switch (node.type) {
        case NodeType.Field:
          node = new FieldNode(this, chain.pos, chain.toString());
          break;
        case NodeType.Variable:
          node = new VariableNode(this, chain.pos, chain.toString());
          break;
        case NodeType.Bool:
        case NodeType.String:
        case NodeType.Number:
        case NodeType.Nil:
        case NodeType.Dot:
          this.errorf(`unexpected . after term ${quote(node.toString())}`);
        // falls through (errorf never returns)
        default:
          node = chain;
      }
    }
    return node;
  }

  // term:
  //
  //	literal (number, string, nil, boolean)
  //	function (identifier)
  //	.
  //	.Field
  //	$
  //	'(' pipeline ')'
  //
  // A term is a simple "expression".
  // A nil return means the next item is not a term.
  private term(): Node | null {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Identifier: {
        const checkFunc = (this.mode & Mode.SkipFuncCheck) === 0;
        if (checkFunc && !this.hasFunction(token.val)) this.errorf(`function ${quote(token.val)} not defined`);
        return new IdentifierNode(this, token.pos, token.val);
      }
      case ItemType.Dot:
        return new DotNode(this, token.pos);
      case ItemType.Nil:
        return new NilNode(this, token.pos);
      case ItemType.Variable:
        return this.useVar(token.pos, token.val);
      case ItemType.Field:
        return new FieldNode(this, token.pos, token.val);
      case ItemType.Bool:
        return new BoolNode(this, token.pos, token.val === 'true');
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return this.newNumber(token.pos, token.val, token.typ);
      case ItemType.LeftParen:
        return this.pipeline('parenthesized pipeline', ItemType.RightParen);
      case ItemType.String:
      case ItemType.RawString:
        return new StringNode(this, token.pos, token.val, this.unquoteOrError(token.val));
    }
    this.backup();
    return null;
  }

  /** hasFunction reports if a function name exists in the Tree's maps. */
  private hasFunction(name: string): boolean {
    for (const funcMap of this.funcs) {
      if (funcMap instanceof Set) {
        if (funcMap.has(name)) return true;
      } else if (Object.prototype.hasOwnProperty.call(funcMap, name) && (funcMap as Record<string, unknown>)[name] != null) {
        return true;
      }
    }
    return false;
  }

  /** useVar returns a node for a variable reference. It errors if the variable is not defined. */
  private useVar(pos: number, name: string): Node {
    const v = new VariableNode(this, pos, name);
    if (this.vars.includes(v.ident[0])) return v;
    this.errorf(`undefined variable ${quote(v.ident[0])}`);
  }

  private newList(pos: number): ListNode {
    return new ListNode(this, pos);
  }

  private unquoteOrError(s: string): string {
    try {
      return unquote(s);
    } catch (e) {
      if (e instanceof UnquoteError) this.errorf(e.message);
      throw e;
    }
  }

  /** newNumber parses a number literal the way Go's parse.newNumber does, under every type that can hold it. */
  private newNumber(pos: number, text: string, typ: ItemType): NumberNode {
    const n = new NumberNode(this, pos, text);
    if (typ === ItemType.CharConstant) {
      let r: { value: number; next: number };
      try {
        r = unquoteChar(text, 1, 0x27);
      } catch (e) {
        if (e instanceof UnquoteError) this.errorf(e.message);
        throw e;
      }
      if (text.slice(r.next) !== "'") this.errorf(`malformed character constant: ${text}`);
      n.int64 = BigInt(r.value);
      n.isInt = true;
      n.uint64 = BigInt(r.value);
      n.isUint = true;
      n.float64 = r.value; // odd but those are the rules.
      n.isFloat = true;
      return n;
    }
    if (typ === ItemType.Complex) {
      // fmt.Sscan of a complex: real part, signed imaginary part ending in i.
      const m = /^([+-]?[^+-]+(?:[eEpP][+-][0-9_]+)?)([+-].+)i$/.exec(text);
      const re = m ? floatOrNull(m[1]) : null;
      const im = m ? floatOrNull(m[2]) : null;
      if (re === null || im === null) this.errorf(`expected integer`);
      n.isComplex = true;
      n.complexRe = re;
      n.complexIm = im;
      simplifyComplex(n);
      return n;
    }
    // Imaginary constants can only be complex unless they are zero.
    if (text.length > 0 && text[text.length - 1] === 'i') {
      const f = floatOrNull(text.slice(0, -1));
      if (f !== null) {
        n.isComplex = true;
        n.complexRe = 0;
        n.complexIm = f;
        simplifyComplex(n);
        return n;
      }
    }
    // Do integer test first so we get 0x123 etc.
    const ur = parseUint64(text, 0); // will fail for -0; fixed below.
    const u = ur.ok ? ur.value : null;
    if (u !== null) {
      n.isUint = true;
      n.uint64 = u;
    }
    const ir = parseInt64(text, 0);
    const i = ir.ok ? ir.value : null;
    if (i !== null) {
      n.isInt = true;
      n.int64 = i;
      if (i === 0n) {
        n.isUint = true; // in case of -0.
        n.uint64 = u ?? 0n;
      }
    }
    // If an integer extraction succeeded, promote the float.
    if (n.isInt) {
      n.isFloat = true;
      n.float64 = Number(n.int64);
    } else if (n.isUint) {
      n.isFloat = true;
      n.float64 = Number(n.uint64);
    } else {
      const f = floatOrNull(text);
      if (f !== null) {
        // If we parsed it as a float but it looks like an integer, it's a huge number too large to fit in an int.
        // Reject it.
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${quote(text)}`);
        n.isFloat = true;
        n.float64 = f;
        // If a floating-point extraction succeeded, extract the int if needed.
        if (!n.isInt && fitsInt64(f)) {
          n.isInt = true;
          n.int64 = BigInt(f);
        }
        if (!n.isUint && fitsUint64(f)) {
          n.isUint = true;
          n.uint64 = BigInt(f);
        }
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.errorf(`illegal number syntax: ${quote(text)}`);
    return n;
  }
}

function fitsInt64(f: number): boolean {
  return Number.isInteger(f) && f >= -9223372036854775808 && f < 9223372036854775808;
}

function fitsUint64(f: number): boolean {
  return Number.isInteger(f) && f >= 0 && f < 18446744073709551616;
}

function simplifyComplex(n: NumberNode): void {
  n.isFloat = n.complexIm === 0;
  if (n.isFloat) {
    n.float64 = n.complexRe;
    n.isInt = fitsInt64(n.float64);
    if (n.isInt) n.int64 = BigInt(n.float64);
    n.isUint = fitsUint64(n.float64);
    if (n.isUint) n.uint64 = BigInt(n.float64);
  }
}

function emptyItem(): Item {
  return { typ: ItemType.EOF, pos: 0, val: '', line: 0 };
}

/**
 * parse returns a map from template name to Tree, created by parsing the templates described in the argument
 * string. The top-level template will be given the specified name. Throws ParseError.
 */
export function parse(name: string, text: string, leftDelim: string, rightDelim: string, funcs: readonly FuncNames[], mode = 0): Map<string, Tree> {
  const treeSet = new Map<string, Tree>();
  const t = new Tree(name);
  t.mode = mode;
  t.text = text;
  t.parse(text, leftDelim, rightDelim, treeSet, funcs);
  return treeSet;
}

/**
 * errorContext returns a textual representation of the location of the node in the input text: `NAME:LINE:COL`
 * (the column counts UTF-8 bytes from the start of the line, as Go does) and the node's text.
 */
export function errorContext(n: { tr: TreeRef; pos: number; toString(): string }): [location: string, context: string] {
  const pos = n.pos;
  const text = n.tr.text.slice(0, pos);
  // Go counts the column in bytes from the start of the line.
  const nl = text.lastIndexOf('\n');
  const byteNum = utf8Len(nl === -1 ? text : text.slice(nl + 1));
  let lineNum = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineNum++;
  return [`${n.tr.parseName}:${lineNum}:${byteNum}`, n.toString()];
}

// floatOrNull is strconv.ParseFloat(s, 64) where only success matters (err == nil), as the parser's number tests use it.
function floatOrNull(s: string): number | null {
  const r = parseFloat64(s);
  return r.ok ? r.value : null;
}
