// exec.ts: template execution, a port of Go's text/template/exec.go. A State holds everything one execution
// mutates (output, variable stack, current node, depth) so a parsed template stays immutable and can be executed
// any number of times.
//
// Go's reflect.Value has states our plain values cannot express directly; we encode them as:
//   - undefined  : the invalid reflect.Value (missing map key, nil data, nil interface after unwrapping),
//   - null       : an interface value holding nil (a JSON null inside a map or slice, a nil function result),
//   - "boxed"    : a non-nil value held in an interface (an element of map[string]interface{} or []interface{}). It
//                  only changes the type Go names in error messages (`in type interface {}`), so instead of
//                  wrapping values we track it beside dot and variables, where it can be observed.
import { GO_METHODS, GO_TYPE, GoFloat32, GoFuncError, GoInt, GoStruct, isGoFunc, isGoStringer, withGoType, type GoFunc, type GoValue } from './value.js';
import {
  assignableTo,
  canBeNil,
  containerElemIsInterface,
  elemTypeOf,
  GoComplex,
  goTypeOf,
  isIntKind,
  isUintKind,
  kindOf,
  mapGet,
  parseGoType,
  sortedKeys,
  wrapInt,
  zeroValue,
  type GoType,
} from './reflect.js';
import { formatValue, sprint } from './fmt.js';
import { quote } from './strconv.js';
import { errorContext } from './parse.js';
import {
  NodeType,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type RangeNode,
  type TemplateNode,
  type VariableNode,
} from './node.js';
import { MissingKeyAction } from './option.js';
import { builtinFuncs, callFunction, isTrue, truth } from './funcs.js';
import { endsWithHTMLEscaper, htmlEscapeValue } from './html.js';
import type { Tree } from './parse.js';

/**
 * maxExecDepth specifies the maximum stack depth of templates within templates. Go uses 100000 (1000 on wasm); a
 * JavaScript stack overflows long before 100000 nested invocations, so we use wasm's limit.
 */
export const maxExecDepth = 1000;

/** ExecBudget bounds one execution (with the templates it invokes), so that a hostile or careless template fails
 * alone instead of exhausting the process: `{{range until 100000000}}` or a runaway recursion stop with an error. */
export interface ExecBudget {
  /** Nodes walked plus range iterations. */
  maxSteps: number;
  /** Characters of output. */
  maxOutputBytes: number;
  /** Wall time in milliseconds, measured with `clock` (no clock: no time limit; the core reads no clock itself). */
  maxMillis: number;
  /** Milliseconds since some epoch (the caller's clock port). */
  clock?: () => number;
}

/** DEFAULT_EXEC_BUDGET: 1,000,000 steps, 32 MiB of output and 10 s (when a clock is given) per execution. A real
 * chart or Sveltos template uses a few thousand steps and well under a megabyte; a million steps take about 0.4 s,
 * which bounds how long one template can hold the event loop every cluster shares. */
export const DEFAULT_EXEC_BUDGET: Readonly<ExecBudget> = { maxSteps: 1_000_000, maxOutputBytes: 32 * 1024 * 1024, maxMillis: 10_000 };

/** BudgetError is an execution stopped by its ExecBudget. */
export class BudgetError extends Error {
  override readonly name = 'BudgetError';
}

// How often (in steps) the clock is read: often enough to stop within milliseconds, rarely enough to cost nothing.
const CLOCK_EVERY = 1024;

/** MISSING is Go's missingVal: "no final value from a previous pipeline stage". */
export const MISSING: unique symbol = Symbol('missingVal');
type Final = GoValue | typeof MISSING;

/** ExecTemplate is what execution needs from a template: its tree, name, option and function lookup. */
export interface ExecTemplate {
  readonly tree: Tree | null;
  name(): string;
  lookupForExec(name: string): ExecTemplate | undefined;
  readonly missingKey: MissingKeyAction;
  readonly htmlEscape: boolean;
  findFunc(name: string): GoFunc | undefined;
}

/** ExecError is an execution failure carrying Go's formatted message. */
export class ExecError extends Error {
  override readonly name = 'ExecError';
}

/** Control is what walking a node tells its caller: carry on, or leave the innermost range (break/continue). */
const enum Control {
  Next = 0,
  Break = 1,
  Continue = 2,
}

/** FuncSig is a GoFunc's parsed signature, cached per function. */
interface FuncSig {
  params: GoType[];
  variadic: GoType | null;
  result: GoType;
  resultIsInterface: boolean;
}

const sigCache = new WeakMap<GoFunc, FuncSig>();

/** signatureOf parses (once) the Go signature declared by a GoFunc. */
export function signatureOf(f: GoFunc): FuncSig {
  let sig = sigCache.get(f);
  if (sig === undefined) {
    const result = parseGoType(f.result);
    sig = {
      params: f.params.map(parseGoType),
      variadic: f.variadic !== undefined ? parseGoType(f.variadic) : null,
      result,
      resultIsInterface: result.empty,
    };
    sigCache.set(f, sig);
  }
  return sig;
}

const builtins = builtinFuncs();
const builtinSet = new Set<GoFunc>(builtins.values());

/** State represents the state of an execution. It's not part of the template so executions don't share it. */
export class State {
  tmpl: ExecTemplate;
  node: Node | null = null; // current node, for errors
  out = '';
  depth = 0; // the height of the stack of executing templates.
  // Push-down stack of variable values, as parallel arrays; nvars is its height (entries above it are stale).
  varNames: string[] = [];
  varValues: GoValue[] = [];
  varBoxed: boolean[] = [];
  nvars = 0;
  /** Whether dot is an interface value (a range element of an interface-typed container). */
  dotBoxed = false;
  private readonly budget: ExecBudget;
  private stepsLeft: number;
  private readonly deadline: number;

  constructor(tmpl: ExecTemplate, dot: GoValue, budget: ExecBudget = DEFAULT_EXEC_BUDGET) {
    this.tmpl = tmpl;
    this.budget = budget;
    this.stepsLeft = budget.maxSteps;
    this.deadline = budget.clock ? budget.clock() + budget.maxMillis : Number.POSITIVE_INFINITY;
    this.push('$', dot, false);
  }

  /** step charges one step of the budget and checks the output size and, now and then, the time. */
  step(): void {
    const left = --this.stepsLeft;
    if (left < 0) this.overBudget(`more than ${this.budget.maxSteps} steps`);
    if (this.out.length > this.budget.maxOutputBytes) this.overBudget(`output larger than ${this.budget.maxOutputBytes} bytes`);
    if ((left & (CLOCK_EVERY - 1)) === 0 && this.budget.clock && this.budget.clock() > this.deadline) {
      this.overBudget(`running longer than ${this.budget.maxMillis} ms`);
    }
  }

  private overBudget(what: string): never {
    throw new BudgetError(this.formatError(`render budget exceeded: ${what}`));
  }

  /** push pushes a new variable on the stack. */
  push(name: string, value: GoValue, boxed: boolean): void {
    const i = this.nvars++;
    this.varNames[i] = name;
    this.varValues[i] = value;
    this.varBoxed[i] = boxed;
  }

  /** mark returns the length of the variable stack. */
  mark(): number {
    return this.nvars;
  }

  /** pop pops the variable stack up to the mark. */
  pop(mark: number): void {
    this.nvars = mark;
  }

  /** setVar overwrites the last declared variable with the given name. Used by variable assignments. */
  setVar(name: string, value: GoValue, boxed: boolean): void {
    for (let i = this.nvars - 1; i >= 0; i--) {
      if (this.varNames[i] === name) {
        this.varValues[i] = value;
        this.varBoxed[i] = boxed;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  /** setTopVar overwrites the top-nth variable on the stack. Used by range iterations. */
  setTopVar(n: number, value: GoValue, boxed: boolean): void {
    const i = this.nvars - n;
    this.varValues[i] = value;
    this.varBoxed[i] = boxed;
  }

  /** varIndex returns the stack index of the named variable. */
  varIndex(name: string): number {
    for (let i = this.nvars - 1; i >= 0; i--) if (this.varNames[i] === name) return i;
    this.errorf(`undefined variable: ${name}`);
  }

  /** at marks the state to be on node n, for error reporting. */
  at(node: Node): void {
    this.node = node;
  }

  /** errorf records an ExecError and terminates processing. */
  errorf(message: string): never {
    throw new ExecError(this.formatError(message));
  }

  /** formatError formats an execution error Go's way: where, in which template, at which node. */
  formatError(message: string): string {
    const name = this.tmpl.name();
    if (this.node === null) return `template: ${name}: ${message}`;
    const [location, context] = errorContext(this.node);
    return `template: ${location}: executing ${quote(name)} at <${context}>: ${message}`;
  }

  // ---- walk functions step through the major pieces of the template structure, generating output as they go.

  walk(dot: GoValue, node: Node): Control {
    this.node = node;
    this.step();
    switch (node.type) {
      case NodeType.Action: {
        // Do not pop variables so they persist until next end. Also, if the action declares variables, don't
        // print the result.
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return Control.Next;
      }
      case NodeType.Break:
        return Control.Break;
      case NodeType.Comment:
        return Control.Next;
      case NodeType.Continue:
        return Control.Continue;
      case NodeType.If:
        return this.walkIfOrWith(NodeType.If, dot, node.pipe, node.list, node.elseList);
      case NodeType.List: {
        const nodes = node.nodes;
        for (let i = 0; i < nodes.length; i++) {
          const n = nodes[i];
          if (n.type === NodeType.Text) {
            this.out += n.text;
            continue;
          }
          const c = this.walk(dot, n);
          if (c !== Control.Next) return c;
        }
        return Control.Next;
      }
      case NodeType.Range:
        return this.walkRange(dot, node);
      case NodeType.Template:
        this.walkTemplate(dot, node);
        return Control.Next;
      case NodeType.Text:
        this.out += node.text;
        return Control.Next;
      case NodeType.With:
        return this.walkIfOrWith(NodeType.With, dot, node.pipe, node.list, node.elseList);
      default:
        this.errorf(`unknown node: ${node.toString()}`);
    }
  }

  /** walkIfOrWith walks an 'if' or 'with' node. The two control structures are identical in behavior except that 'with' sets dot. */
  walkIfOrWith(typ: NodeType, dot: GoValue, pipe: PipeNode, list: ListNode, elseList: ListNode | null): Control {
    const mark = this.mark();
    const val = this.evalPipeline(dot, pipe);
    const [t, ok] = isTrue(val);
    if (!ok) this.errorf(`if/with can't use ${sprint(val)}`);
    let c = Control.Next;
    if (t) {
      if (typ === NodeType.With) {
        const saved = this.dotBoxed;
        this.dotBoxed = false;
        c = this.walk(val, list);
        this.dotBoxed = saved;
      } else {
        c = this.walk(dot, list);
      }
    } else if (elseList !== null) {
      c = this.walk(dot, elseList);
    }
    this.pop(mark);
    return c;
  }

  walkRange(dot: GoValue, r: RangeNode): Control {
    this.at(r);
    const outerMark = this.mark();
    const val = this.evalPipeline(dot, r.pipe);
    // mark top of stack before any variables in the body are pushed.
    const mark = this.mark();
    const decl = r.pipe.decl;
    const savedDotBoxed = this.dotBoxed;
    const kind = kindOf(val);
    ranged: switch (kind) {
      case 'slice': {
        if (val instanceof Uint8Array) {
          if (val.length === 0) break;
          for (let i = 0; i < val.length; i++) {
            if (this.oneIteration(r, mark, savedDotBoxed, intIndex(i), new GoInt('uint8', BigInt(val[i])), false)) break;
          }
          this.pop(outerMark);
          return Control.Next;
        }
        const arr = val as GoValue[];
        if (arr.length === 0) break;
        const boxed = containerElemIsInterface(arr);
        for (let i = 0; i < arr.length; i++) {
          const v = arr[i];
          if (this.oneIteration(r, mark, savedDotBoxed, intIndex(i), v === undefined ? null : v, boxed)) break;
        }
        this.pop(outerMark);
        return Control.Next;
      }
      case 'map': {
        const m = val as Record<string, GoValue>;
        const keys = sortedKeys(m);
        if (keys.length === 0) break;
        const boxed = containerElemIsInterface(m);
        for (const k of keys) {
          const v = m[k];
          if (this.oneIteration(r, mark, savedDotBoxed, k, v === undefined ? null : v, boxed)) break;
        }
        this.pop(outerMark);
        return Control.Next;
      }
      case 'invalid':
        break; // An invalid value is likely a nil map, etc. and acts like an empty map.
      default:
        if (isIntKind(kind) || isUintKind(kind)) {
          // Go ≥ 1.24: range over an integer n yields 0..n-1, of n's type.
          if (decl.length > 1) this.errorf(`can't use ${sprint(val)} to iterate over more than one variable`);
          const n = kind === 'int64' ? (val as bigint) : (val as GoInt).value;
          if (n <= 0n) break ranged;
          for (let i = 0n; i < n; i++) {
            if (this.oneIteration(r, mark, savedDotBoxed, undefined, wrapInt(kind, i), false)) break;
          }
          this.pop(outerMark);
          return Control.Next;
        }
        this.errorf(`range can't iterate over ${sprint(val)}`);
    }
    let c = Control.Next;
    if (r.elseList !== null) {
      c = this.walk(dot, r.elseList);
      // Go: the range's own recover swallows a {{break}} coming out of its else branch.
      if (c === Control.Break) c = Control.Next;
    }
    this.pop(outerMark);
    return c;
  }

  /** oneIteration runs a range body once; it reports whether the body asked to break. */
  oneIteration(r: RangeNode, mark: number, savedDotBoxed: boolean, index: GoValue, elem: GoValue, elemBoxed: boolean): boolean {
    const decl = r.pipe.decl;
    if (decl.length > 0) {
      if (r.pipe.isAssign) {
        // With two variables, index comes first. With one, we use the element.
        if (decl.length > 1) this.setVar(decl[0].ident[0], index, false);
        else this.setVar(decl[0].ident[0], elem, elemBoxed);
      } else {
        // Set top var (lexically the second if there are two) to the element.
        this.setTopVar(1, elem, elemBoxed);
      }
    }
    if (decl.length > 1) {
      if (r.pipe.isAssign) this.setVar(decl[1].ident[0], elem, elemBoxed);
      // Set next var (lexically the first if there are two) to the index.
      else this.setTopVar(2, index, false);
    }
    this.dotBoxed = elemBoxed;
    const c = this.walk(elem, r.list);
    this.dotBoxed = savedDotBoxed;
    this.pop(mark);
    return c === Control.Break;
  }

  walkTemplate(dot: GoValue, t: TemplateNode): void {
    this.at(t);
    const tmpl = this.tmpl.lookupForExec(t.name);
    if (tmpl === undefined || tmpl.tree === null || tmpl.tree.root === null) this.errorf(`template ${quote(t.name)} not defined`);
    if (this.depth === maxExecDepth) this.errorf(`exceeded maximum template depth (${maxExecDepth})`);
    // Variables declared by the pipeline persist.
    dot = this.evalPipeline(dot, t.pipe);
    const saved = { tmpl: this.tmpl, names: this.varNames, values: this.varValues, boxed: this.varBoxed, nvars: this.nvars, dotBoxed: this.dotBoxed };
    this.depth++;
    this.tmpl = tmpl;
    // No dynamic scoping: template invocations inherit no variables.
    this.varNames = ['$'];
    this.varValues = [dot];
    this.varBoxed = [false];
    this.nvars = 1;
    this.dotBoxed = false;
    this.walk(dot, tmpl.tree.root);
    this.depth--;
    this.tmpl = saved.tmpl;
    this.varNames = saved.names;
    this.varValues = saved.values;
    this.varBoxed = saved.boxed;
    this.nvars = saved.nvars;
    this.dotBoxed = saved.dotBoxed;
  }

  // ---- Eval functions evaluate pipelines, commands, and their elements and extract values from the data structure.

  /**
   * evalPipeline returns the value acquired by evaluating a pipeline. If the pipeline has a variable declaration,
   * the variable will be pushed on the stack. Callers should therefore pop the stack after they are finished
   * executing commands depending on the pipeline value.
   */
  evalPipeline(dot: GoValue, pipe: PipeNode | null): GoValue {
    if (pipe === null) return undefined;
    this.at(pipe);
    let value: Final = MISSING;
    const cmds = pipe.cmds;
    for (let i = 0; i < cmds.length; i++) {
      value = this.evalCommand(dot, cmds[i], value); // previous value is this one's final arg.
      // If the object has type interface{}, dig down one level to the thing inside.
      if (value === null) value = undefined;
    }
    const v = value as GoValue;
    const decl = pipe.decl;
    for (let i = 0; i < decl.length; i++) {
      if (pipe.isAssign) this.setVar(decl[i].ident[0], v, false);
      else this.push(decl[i].ident[0], v, false);
    }
    return v;
  }

  notAFunction(args: readonly Node[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${args[0].toString()}`);
  }

  evalCommand(dot: GoValue, cmd: CommandNode, final: Final): GoValue {
    const firstWord = cmd.args[0];
    switch (firstWord.type) {
      case NodeType.Field:
        return this.evalFieldNode(dot, firstWord, cmd.args, final);
      case NodeType.Chain:
        return this.evalChainNode(dot, firstWord, cmd.args, final);
      case NodeType.Identifier:
        // Must be a function.
        return this.evalFunction(dot, firstWord, cmd, cmd.args, final);
      case NodeType.Pipe:
        // Parenthesized pipeline. The arguments are all inside the pipeline; final must be absent.
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, firstWord);
      case NodeType.Variable:
        return this.evalVariableNode(dot, firstWord, cmd.args, final);
    }
    this.at(firstWord);
    this.notAFunction(cmd.args, final);
    switch (firstWord.type) {
      case NodeType.Bool:
        return firstWord.value;
      case NodeType.Dot:
        return dot;
      case NodeType.Nil:
        this.errorf('nil is not a command');
      // falls through (errorf never returns)
      case NodeType.Number:
        return this.idealConstant(firstWord);
      case NodeType.String:
        return firstWord.text;
    }
    this.errorf(`can't evaluate command ${quote(firstWord.toString())}`);
  }

  /**
   * idealConstant is called to return the value of a number in a context where we don't know the type. In that
   * case, the syntax of the number tells us its type, and we use Go rules to resolve. Note there is no such thing
   * as a uint ideal constant in this situation - the value must be of int type.
   */
  idealConstant(constant: NumberNode): GoValue {
    this.at(constant);
    if (constant.ideal !== undefined) return constant.ideal;
    let v: GoValue;
    const text = constant.text;
    if (constant.isComplex) {
      v = new GoComplex(constant.complexRe, constant.complexIm) as unknown as GoValue; // incontrovertible.
    } else if (constant.isFloat && !isHexInt(text) && !isRuneInt(text) && /[.eEpP]/.test(text)) {
      v = constant.float64;
    } else if (constant.isInt) {
      v = new GoInt('int', constant.int64);
    } else if (constant.isUint) {
      this.errorf(`${text} overflows int`);
    } else {
      return undefined;
    }
    constant.ideal = v; // immutable values only, so executions may share them
    return v;
  }

  evalFieldNode(dot: GoValue, field: FieldNode, args: readonly Node[] | null, final: Final): GoValue {
    this.node = field;
    return this.evalFieldChain(dot, dot, this.dotBoxed, field, field.ident, 0, args, final);
  }

  evalChainNode(dot: GoValue, chain: ChainNode, args: readonly Node[] | null, final: Final): GoValue {
    this.at(chain);
    if (chain.field.length === 0) this.errorf('internal error: no fields in evalChainNode');
    if (chain.node.type === NodeType.Nil) this.errorf(`indirection through explicit nil in ${chain.toString()}`);
    // (pipe).Field1.Field2 has pipe as .Node, fields as .Field. Eval the pipeline, then the fields.
    const pipe = this.evalArg(dot, null, chain.node);
    let boxed = false;
    if (chain.node.type === NodeType.Identifier) {
      const f = this.findFunction(chain.node.ident);
      boxed = f !== undefined && signatureOf(f).resultIsInterface;
    }
    return this.evalFieldChain(dot, pipe, boxed, chain, chain.field, 0, args, final);
  }

  evalVariableNode(dot: GoValue, variable: VariableNode, args: readonly Node[] | null, final: Final): GoValue {
    // $x.Field has $x as the first ident, Field as the second. Eval the var, then the fields.
    this.node = variable;
    const i = this.varIndex(variable.ident[0]);
    const value = this.varValues[i];
    if (variable.ident.length === 1) {
      this.notAFunction(args ?? [variable], final);
      return value;
    }
    return this.evalFieldChain(dot, value, this.varBoxed[i], variable, variable.ident, 1, args, final);
  }

  /**
   * evalFieldChain evaluates .X.Y.Z possibly followed by arguments. dot is the environment in which to evaluate
   * arguments, while receiver is the value being walked along the chain.
   */
  evalFieldChain(
    dot: GoValue,
    receiver: GoValue,
    boxed: Boxed,
    node: Node,
    ident: readonly string[],
    start: number,
    args: readonly Node[] | null,
    final: Final,
  ): GoValue {
    const n = ident.length;
    for (let i = start; i < n - 1; i++) {
      const next = this.evalField(dot, ident[i], node, null, MISSING, receiver, boxed);
      // The next receiver came out of this container (boxedness decided lazily), or is a method's concrete result.
      boxed = isGoStringer(receiver) && receiver.goMethod !== undefined ? false : (receiver as object);
      receiver = next;
    }
    // Now if it's a method, it gets the arguments.
    return this.evalField(dot, ident[n - 1], node, args, final, receiver, boxed);
  }

  evalFunction(dot: GoValue, node: IdentifierNode, cmd: Node, args: readonly Node[] | null, final: Final): GoValue {
    this.at(node);
    const name = node.ident;
    const f = this.findFunction(name);
    if (f === undefined) this.errorf(`${quote(name)} is not a defined function`);
    return this.evalCall(dot, f, builtinSet.has(f), cmd, name, args, final);
  }

  /** findFunction looks for a function in the template, and global map. */
  findFunction(name: string): GoFunc | undefined {
    const f = this.tmpl.findFunc(name);
    if (f !== undefined) return f;
    return builtins.get(name);
  }

  /**
   * evalField evaluates an expression like (.Field) or (.Field arg1 arg2). The 'final' argument represents the
   * return value from the preceding value of the pipeline, if any.
   */
  evalField(
    dot: GoValue,
    fieldName: string,
    node: Node,
    args: readonly Node[] | null,
    final: Final,
    receiver: GoValue,
    boxedIn: Boxed,
  ): GoValue {
    if (receiver === undefined) {
      if (this.tmpl.missingKey === MissingKeyAction.Error) {
        // Treat invalid value as missing map key.
        this.errorf(`nil data; no entry for key ${quote(fieldName)}`);
      }
      return undefined;
    }
    if (receiver === null) {
      // Calling a method on a nil interface can't work.
      this.errorf(`nil pointer evaluating interface {}.${fieldName}`);
    }
    const hasArgs = (args !== null && args.length > 1) || final !== MISSING;
    if (typeof receiver === 'object') {
      // A named map or slice type with methods (withGoMethods): methods first, as Go's ptr.MethodByName.
      const methods = (receiver as { [GO_METHODS]?: (name: string) => GoValue | undefined })[GO_METHODS];
      if (methods !== undefined) {
        const method = methods(fieldName);
        if (method !== undefined) return this.evalMethod(dot, method, node, fieldName, args, final);
      }
    }
    if (typeof receiver === 'object' && isGoStringer(receiver) && receiver.goMethod !== undefined) {
      // Unless it's an interface, need to get to a value of type *T to guarantee we see all methods of both T and *T.
      // (Values with methods expose exactly the method set Go would find through goMethod.)
      const method = receiver.goMethod(fieldName);
      if (method !== undefined) return this.evalMethod(dot, method, node, fieldName, args, final);
      // It's not a method; a struct with only unexported fields has no field to give either.
      if (receiver.goFieldNames?.().includes(fieldName)) {
        this.errorf(`${fieldName} is an unexported field of struct type ${isBoxed(boxedIn) ? 'interface {}' : goTypeOf(receiver)}`);
      }
    }
    // It's not a method; must be a field of a struct or an element of a map.
    if (typeof receiver === 'object') {
      const proto = Object.getPrototypeOf(receiver);
      if (proto === Object.prototype || proto === null) {
        const m = receiver as Record<string, GoValue>;
        const result = m[fieldName];
        // Fast path: a present key that cannot be mistaken for a GoFunc's own property or the prototype.
        if (result !== undefined && typeof result !== 'function' && !slowKeys.has(fieldName)) {
          if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
          return result;
        }
        if (!isGoFunc(receiver) && !isGoStringer(receiver)) {
          // If it's a map, attempt to use the field name as a key.
          if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
          const r = mapGet(m, fieldName);
          if (r !== undefined) return r;
          switch (this.tmpl.missingKey) {
            case MissingKeyAction.Invalid:
              // Just use the invalid value.
              return undefined;
            case MissingKeyAction.ZeroValue:
              return zeroValue(parseGoType(elemTypeOf(goTypeOf(receiver))));
            case MissingKeyAction.Error:
              this.errorf(`map has no entry for key ${quote(fieldName)}`);
          }
        }
      }
      if (receiver instanceof GoStruct && Object.prototype.hasOwnProperty.call(receiver.fields, fieldName)) {
        if (!isExported(fieldName)) {
          this.errorf(`${fieldName} is an unexported field of struct type ${isBoxed(boxedIn) ? 'interface {}' : receiver.typeName}`);
        }
        // If it's a function, we must call it.
        if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
        const f = receiver.fields[fieldName];
        return f === undefined ? null : f;
      }
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${isBoxed(boxedIn) ? 'interface {}' : goTypeOf(receiver)}`);
  }

  /**
   * evalMethod calls the method a value's goMethod hook returned: a GoFunc is called like any function (Go's evalCall
   * on the method value); any other value is the result of a niladic method, which takes no arguments.
   */
  evalMethod(dot: GoValue, method: GoValue, node: Node, name: string, args: readonly Node[] | null, final: Final): GoValue {
    if (isGoFunc(method)) return this.evalCall(dot, method, false, node, name, args, final);
    const numIn = (args !== null ? args.length - 1 : 0) + (final !== MISSING ? 1 : 0);
    if (numIn !== 0) this.errorf(`wrong number of args for ${name}: want 0 got ${numIn}`);
    return method;
  }

  /**
   * evalCall executes a function or method call. The arg list, if non-null, includes (in the manner of the shell),
   * arg[0] as the function itself.
   */
  evalCall(dot: GoValue, fun: GoFunc, isBuiltin: boolean, node: Node, name: string, argsIn: readonly Node[] | null, final: Final): GoValue {
    const sig = signatureOf(fun);
    // Zeroth arg is function name/node; not passed to function.
    const nargs = argsIn !== null ? argsIn.length - 1 : 0;
    const numParams = sig.params.length + (sig.variadic !== null ? 1 : 0);
    let numIn = nargs;
    if (final !== MISSING) numIn++;
    let numFixed = nargs;
    if (sig.variadic !== null) {
      numFixed = sig.params.length; // last arg is the variadic one.
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${nargs}`);
    } else if (numIn !== numParams) {
      this.errorf(`wrong number of args for ${name}: want ${numParams} got ${numIn}`);
    }

    // Special case for builtin and/or, which short-circuit.
    if (isBuiltin && (name === 'and' || name === 'or')) {
      const argType = sig.params[0];
      let v: GoValue = undefined;
      for (let i = 1; i <= nargs; i++) {
        v = this.evalArg(dot, argType, argsIn![i]);
        if (truth(v) === (name === 'or')) return v;
      }
      if (final !== MISSING) {
        // The last argument to and/or is coming from the pipeline. We didn't short circuit on an earlier argument,
        // so we are going to return this one. We don't have to evaluate final, but we do have to check its type.
        v = this.validateType(final, argType);
      }
      return v;
    }

    // Build the arg list.
    const argv: GoValue[] = new Array(numIn);
    // Args must be evaluated. Fixed args first.
    let i = 0;
    for (; i < numFixed && i < nargs; i++) argv[i] = this.evalArg(dot, sig.params[i], argsIn![i + 1]);
    // Now the ... args.
    if (sig.variadic !== null) {
      for (; i < nargs; i++) argv[i] = this.evalArg(dot, sig.variadic, argsIn![i + 1]);
    }
    // Add final value if necessary.
    if (final !== MISSING) {
      let t: GoType;
      if (sig.variadic !== null) {
        // The added final argument corresponds to a fixed parameter of the function, or to the variadic part.
        t = numIn - 1 < numFixed ? sig.params[numIn - 1] : sig.variadic;
      } else {
        t = sig.params[sig.params.length - 1];
      }
      argv[i] = this.validateType(final, t);
    }

    let v: GoValue;
    try {
      if (isBuiltin && name === 'call') {
        // Special case for the "call" builtin. Insert the name of the callee function as the first argument.
        if (nargs === 0) throw new GoFuncError('runtime error: index out of range [0] with length 0');
        const calleeName = argsIn![1].toString();
        v = callFunction(calleeName, argv[0], argv.slice(1));
      } else {
        v = fun.impl(...argv);
      }
    } catch (e) {
      // Go: safeCall recovers panics and returns errors alike. If we have an error that is not nil, stop execution
      // and return that error to the caller.
      this.at(node);
      this.errorf(`error calling ${name}: ${errorText(e)}`);
    }
    return normalizeResult(v, sig.result);
  }

  /** validateType guarantees that the value is valid and assignable to the type. */
  validateType(value: GoValue, typ: GoType | null): GoValue {
    if (value === undefined) {
      if (typ === null) return undefined; // An untyped nil interface{}. Accept as a proper nil value.
      // Like above, but use the zero value of the non-nil type.
      if (canBeNil(typ)) return zeroValue(typ);
      this.errorf(`invalid value; expected ${typ.name}`);
    }
    if (typ === null || typ.empty || typ.kind === 'reflect.Value') return value;
    if (value === null) this.errorf(`wrong type for value; expected ${typ.name}; got interface {}`);
    if (!assignableTo(value, typ)) this.errorf(`wrong type for value; expected ${typ.name}; got ${goTypeOf(value)}`);
    return value;
  }

  evalArg(dot: GoValue, typ: GoType | null, n: Node): GoValue {
    this.node = n;
    switch (n.type) {
      case NodeType.Dot:
        return this.validateType(dot, typ);
      case NodeType.Nil:
        if (typ !== null && canBeNil(typ)) return zeroValue(typ);
        this.errorf(`cannot assign nil to ${typ === null ? '<nil>' : typ.name}`);
      // falls through (errorf never returns)
      case NodeType.Field:
        return this.validateType(this.evalFieldNode(dot, n, null, MISSING), typ); // Go passes []Node{n}: no arguments
      case NodeType.Variable:
        return this.validateType(this.evalVariableNode(dot, n, null, MISSING), typ);
      case NodeType.Pipe:
        return this.validateType(this.evalPipeline(dot, n), typ);
      case NodeType.Identifier:
        return this.validateType(this.evalFunction(dot, n, n, null, MISSING), typ);
      case NodeType.Chain:
        return this.validateType(this.evalChainNode(dot, n, null, MISSING), typ);
    }
    const kind = typ === null ? 'invalid' : typ.kind;
    switch (kind) {
      case 'bool':
        this.at(n);
        if (n.type === NodeType.Bool) return n.value;
        this.errorf(`expected bool; found ${n.toString()}`);
      // falls through (errorf never returns)
      case 'complex128':
        if (n.type === NodeType.Number && n.isComplex) return new GoComplex(n.complexRe, n.complexIm) as unknown as GoValue;
        this.errorf(`expected complex; found ${n.toString()}`);
      // falls through
      case 'float32':
      case 'float64':
        this.at(n);
        if (n.type === NodeType.Number && n.isFloat) return kind === 'float64' ? n.float64 : new GoFloat32(Math.fround(n.float64));
        this.errorf(`expected float; found ${n.toString()}`);
      // falls through
      case 'int':
      case 'int8':
      case 'int16':
      case 'int32':
      case 'int64':
        this.at(n);
        if (n.type === NodeType.Number && n.isInt) return wrapInt(kind, n.int64);
        this.errorf(`expected integer; found ${n.toString()}`);
      // falls through
      case 'interface':
        if (typ!.empty) return this.evalEmptyInterface(dot, n);
        break;
      case 'reflect.Value':
        return this.evalEmptyInterface(dot, n);
      case 'string':
        this.at(n);
        if (n.type === NodeType.String) return n.text;
        this.errorf(`expected string; found ${n.toString()}`);
      // falls through
      case 'uint':
      case 'uint8':
      case 'uint16':
      case 'uint32':
      case 'uint64':
      case 'uintptr':
        this.at(n);
        if (n.type === NodeType.Number && n.isUint) return wrapInt(kind, n.uint64);
        this.errorf(`expected unsigned integer; found ${n.toString()}`);
    }
    this.errorf(`can't handle ${n.toString()} for arg of type ${typ === null ? '<nil>' : typ.name}`);
  }

  evalEmptyInterface(dot: GoValue, n: Node): GoValue {
    this.at(n);
    switch (n.type) {
      case NodeType.Bool:
        return n.value;
      case NodeType.Dot:
        return dot;
      case NodeType.Field:
        return this.evalFieldNode(dot, n, null, MISSING);
      case NodeType.Identifier:
        return this.evalFunction(dot, n, n, null, MISSING);
      case NodeType.Nil:
        // NilNode is handled in evalArg, the only place that calls here.
        this.errorf("evalEmptyInterface: nil (can't happen)");
      // falls through
      case NodeType.Number:
        return this.idealConstant(n);
      case NodeType.String:
        return n.text;
      case NodeType.Variable:
        return this.evalVariableNode(dot, n, null, MISSING);
      case NodeType.Pipe:
        return this.evalPipeline(dot, n);
    }
    this.errorf(`can't handle assignment of ${n.toString()} to empty interface argument`);
  }

  /** printValue writes the textual representation of the value to the output of the template. */
  printValue(n: Node, v: GoValue): void {
    this.at(n);
    if (this.tmpl.htmlEscape) {
      // html/template's escaper for text context, unless the pipeline already ends in the equivalent `html`.
      if (n.type === NodeType.Action && endsWithHTMLEscaper(n)) this.out += typeof v === 'string' ? v : formatValue(v);
      else this.out += htmlEscapeValue(v);
      return;
    }
    switch (typeof v) {
      case 'string':
        this.out += v;
        return;
      case 'undefined':
        this.out += '<no value>';
        return;
      case 'function':
        this.errorf(`can't print ${n.toString()} of type ${goTypeOf(v)}`);
      // falls through
      case 'object':
        if (isGoFunc(v)) this.errorf(`can't print ${n.toString()} of type ${goTypeOf(v)}`);
        if (isGoStringer(v) && v.goTemplateString !== undefined) {
          this.out += v.goTemplateString();
          return;
        }
    }
    this.out += formatValue(v);
  }
}

function isExported(name: string): boolean {
  const c = name.codePointAt(0)!;
  return String.fromCodePoint(c).toUpperCase() === String.fromCodePoint(c) && String.fromCodePoint(c).toLowerCase() !== String.fromCodePoint(c);
}

/** isPlainMap tells Go maps (plain objects) apart from the other object-shaped values. */
function isPlainMap(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !isGoFunc(v);
}

/**
 * Boxed says whether a receiver is an interface value: a boolean, or the container it was read from (decided only
 * when an error message needs it, to keep field chains cheap).
 */
type Boxed = boolean | object;

function isBoxed(b: Boxed): boolean {
  if (typeof b === 'boolean') return b;
  return !(b instanceof GoStruct) && containerElemIsInterface(b);
}

// Keys that need the slow map path: a GoFunc's own properties (a GoFunc is not a map) and the prototype accessor.
const slowKeys: ReadonlySet<string> = new Set(['name', 'params', 'variadic', 'result', 'returnsError', 'impl', '__proto__']);

const smallInts: GoInt[] = [];
/** intIndex returns the Go int i (range indexes), sharing the small ones. */
function intIndex(i: number): GoInt {
  if (i < 256) {
    let v = smallInts[i];
    if (v === undefined) smallInts[i] = v = new GoInt('int', BigInt(i));
    return v;
  }
  return new GoInt('int', BigInt(i));
}

function isRuneInt(s: string): boolean {
  return s.length > 0 && s[0] === "'";
}

function isHexInt(s: string): boolean {
  return s.length > 2 && s[0] === '0' && (s[1] === 'x' || s[1] === 'X') && !/[pP]/.test(s);
}

/** errorText is the text of a Go error returned (or panicked) by a function. */
function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

/** normalizeResult gives a function's result the Go type its signature declares. */
function normalizeResult(v: GoValue, t: GoType): GoValue {
  switch (t.kind) {
    case 'reflect.Value':
      return v;
    case 'interface':
      return v === undefined ? null : v;
  }
  // A Go function always returns a value of its declared type.
  if (v === undefined) return zeroValue(t);
  switch (t.kind) {
    case 'string':
    case 'bool':
      return v;
    case 'int64':
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      if (v instanceof GoInt) return BigInt.asIntN(64, v.value);
      return v;
    case 'float64':
      if (typeof v === 'bigint') return Number(v);
      if (v instanceof GoInt) return Number(v.value);
      if (v instanceof GoFloat32) return v.value;
      return v;
    case 'float32':
      if (typeof v === 'number') return new GoFloat32(Math.fround(v));
      return v;
    case 'slice':
    case 'map':
      if (v === null || v === undefined) return zeroValue(t);
      if (typeof v === 'object' && (Array.isArray(v) || isPlainMap(v)) && (v as Record<symbol, unknown>)[GO_TYPE] === undefined) {
        // An untyped array or object returned for a typed result: record the declared type.
        const def = t.kind === 'slice' ? '[]interface {}' : 'map[string]interface {}';
        if (t.name !== def) withGoType(v, t.name);
      }
      return v;
  }
  if (isIntKind(t.kind) || isUintKind(t.kind)) {
    if (typeof v === 'bigint') return wrapInt(t.kind, v);
    if (typeof v === 'number' && Number.isInteger(v)) return wrapInt(t.kind, BigInt(v));
    if (v instanceof GoInt && v.type !== t.kind) return wrapInt(t.kind, v.value);
  }
  return v;
}
