// YAML out of documentation: finds the YAML examples in a Markdown page (``` fences, also inside `!!! example`
// admonitions) or in a page flattened to plain text, and repairs the damage copy-and-paste and rendering do to
// them — heredoc wrappers, `...` elisions, missing `---` separators, lost or shifted indentation — recording every
// repair. Used for the seed documents, which are product input: every example in them must work.
import { parseAllDocuments } from 'yaml';

/** YamlBlock is one YAML example found in a document. */
export interface YamlBlock {
  /** 1-based position among the YAML blocks of the document. */
  index: number;
  /** 1-based line of the block's first content line in the document. */
  line: number;
  /** `fence` (Markdown ``` block) or `flat` (plain text that starts at an `apiVersion:` line). */
  source: 'fence' | 'flat';
  /** The fence's info string (`yaml`, or `` for an untagged fence); `flat` for flat blocks. */
  info: string;
  /** The block's text exactly as in the document. */
  raw: string;
}

/** RecoverResult is recovered YAML text with the repairs made, or why it could not be recovered. */
export type RecoverResult = { ok: true; text: string; steps: string[] } | { ok: false; reason: string; steps: string[] };

/** RecoverOptions supplies what recovery cannot know by itself. */
export interface RecoverOptions {
  /**
   * The top-level fields objects of this apiVersion/kind may have (for Sveltos kinds: the root schema's
   * properties). Used to put back `metadata:`/`spec:` content that lost one indentation level.
   */
  topLevelFields(apiVersion: string | undefined, kind: string | undefined): readonly string[];
  /** Well-indented YAML texts with the same examples, used to restore a block whose indentation was lost entirely. */
  reference?: readonly string[];
  /** How to name the reference in recovery steps (e.g. "seed 004"). */
  referenceName?: string;
}

const FENCE_RE = /^(\s*)```\s*([\w-]*)\s*$/;

/**
 * extractYamlBlocks returns the YAML examples of a document: fences tagged yaml/yml or untagged (shell and other
 * languages are not YAML), or — in a document without fences — runs of lines starting at `apiVersion:` and ending
 * before the next prose line. Markdown front matter is page metadata, not an example, and is not returned.
 */
export function extractYamlBlocks(text: string): YamlBlock[] {
  const lines = text.split('\n');
  return lines.some((l) => FENCE_RE.test(l)) ? fencedBlocks(lines) : flatBlocks(lines);
}

function fencedBlocks(lines: string[]): YamlBlock[] {
  const blocks: YamlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_RE.exec(lines[i]);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) j++;
    const info = open[2].toLowerCase();
    if (info === 'yaml' || info === 'yml' || info === '') {
      blocks.push({ index: blocks.length + 1, line: i + 2, source: 'fence', info, raw: lines.slice(i + 1, j).join('\n') });
    }
    i = j;
  }
  return blocks;
}

const YAML_KEY_RE = /^\s*[^\s:#'"{}[\],][^\s:]*:(\s|$)/;
const LUA_START_RE = /^(function|if|for|while|return|end|local|else|elseif|repeat|until)\b/;

// A prose line: a sentence (four words or more) that is not a YAML key, list item, template or code.
function isProse(line: string): boolean {
  const t = line.trim();
  if (t.split(/\s+/).length < 4) return false;
  if (YAML_KEY_RE.test(t) || t.startsWith('- ') || t.startsWith('#') || t.startsWith('{{')) return false;
  if (t.includes('{{') || / = |~=|==/.test(t) || LUA_START_RE.test(t)) return false;
  return true;
}

function flatBlocks(lines: string[]): YamlBlock[] {
  const blocks: YamlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^apiVersion:\s*\S/.test(lines[i])) continue;
    let j = i + 1;
    let folded = false; // inside a `>`/`>-` folded scalar: prose lines are content until the next key
    for (; j < lines.length; j++) {
      const l = lines[j];
      if (folded) {
        if (YAML_KEY_RE.test(l) || /^\s*- /.test(l)) folded = false;
        else continue;
      }
      if (isProse(l)) break;
      if (/:\s*>[-+]?\s*$/.test(l)) folded = true;
    }
    while (j > i && lines[j - 1].trim() === '') j--;
    blocks.push({ index: blocks.length + 1, line: i + 1, source: 'flat', info: 'flat', raw: lines.slice(i, j).join('\n') });
    i = j - 1;
  }
  return blocks;
}

// ---- recovery ----

const indentOf = (l: string) => l.length - l.trimStart().length;
const isBlank = (l: string) => l.trim() === '';

function parseProblems(text: string): string[] {
  try {
    return parseAllDocuments(text).flatMap((d) => d.errors.map((e) => e.message.split('\n')[0]));
  } catch (e) {
    return [(e as Error).message];
  }
}

/**
 * recoverYaml repairs a documentation YAML block, applying only the repairs the block needs, and checks the result
 * parses. Repairs, in order: remove the indentation of an enclosing admonition; strip a `cat > f <<EOF … EOF`
 * wrapper; drop `...` elision lines; restore a block whose indentation was lost entirely by aligning it with the
 * same example in `reference`; split documents missing their `---`; put back `metadata:`/`spec:` content that lost
 * one level; dedent a body indented under a flush-left first line; pull over-indented keys back to their siblings.
 */
export function recoverYaml(raw: string, options: RecoverOptions): RecoverResult {
  const steps: string[] = [];
  let lines = raw.split('\n');
  while (lines.length && isBlank(lines[lines.length - 1])) lines.pop();

  const common = Math.min(...lines.filter((l) => !isBlank(l)).map(indentOf));
  if (common > 0 && Number.isFinite(common)) {
    lines = lines.map((l) => l.slice(Math.min(common, indentOf(l))));
    steps.push(`removed the ${common}-space indentation of the enclosing block`);
  }
  const first = lines.findIndex((l) => !isBlank(l));
  if (first >= 0 && /^cat\s+>\s*\S+\s*<<-?\s*'?EOF'?\s*$/.test(lines[first].trim()) && lines[lines.length - 1].trim() === 'EOF') {
    steps.push(`stripped the shell heredoc wrapper (${lines[first].trim()} … EOF)`);
    lines = [...lines.slice(0, first), ...lines.slice(first + 1, -1)];
  }

  const flattened = lines.filter((l) => !isBlank(l)).every((l) => indentOf(l) === 0) && lines.filter((l) => /:\s*$/.test(l)).length >= 2;
  const elision = (l: string) => l.trim() === '...' && (flattened || indentOf(l) > 0);
  const elided = lines.filter(elision).length;
  if (elided > 0) {
    lines = lines.filter((l) => !elision(l));
    steps.push(`dropped ${elided} "..." elision line${elided > 1 ? 's' : ''} (the document's "more fields here")`);
  }

  if (flattened) {
    if (!options.reference?.length) {
      return { ok: false, reason: 'indentation lost entirely (flattened text) and no reference text to restore it from', steps };
    }
    // Document separators stay flush left; align the documents' lines only.
    const body = lines.filter((l) => !isBlank(l));
    const aligned = alignWithReference(body.filter((l) => !/^---\s*$/.test(l)), options.reference);
    if (!aligned.ok) return { ok: false, reason: aligned.reason, steps };
    let k = 0;
    lines = body.map((l) => (/^---\s*$/.test(l) ? '---' : aligned.lines[k++]));
    const from = options.referenceName ?? 'the reference text';
    steps.push(
      `restored the lost indentation line by line from the same example in ${from}` +
        (aligned.substituted > 0 ? ` (${aligned.substituted} differing line${aligned.substituted === 1 ? '' : 's'} took the indentation of the line ${aligned.substituted === 1 ? 'it replaces' : 'they replace'})` : ''),
    );
  }

  const split = splitMissingSeparators(lines);
  if (split.count > 0) {
    lines = split.lines;
    steps.push(`inserted ${split.count} missing "---" document separator${split.count > 1 ? 's' : ''}`);
  }
  const nested = nestLostTopLevel(lines, options);
  if (nested.moved.length > 0) {
    lines = nested.lines;
    steps.push(`re-indented ${nested.moved.join(', ')} under their parent (lost one indentation level)`);
  }
  if (parseProblems(lines.join('\n')).length > 0) {
    const d = dedentBody(lines);
    if (d.by > 0) {
      lines = d.lines;
      steps.push(`dedented the body by ${d.by} spaces (it was indented under a flush-left first line)`);
    }
  }
  if (parseProblems(lines.join('\n')).length > 0) {
    const f = fixOverIndentedKeys(lines);
    if (f.count > 0) {
      lines = f.lines;
      steps.push(`pulled ${f.count} over-indented key${f.count > 1 ? 's' : ''} back to the indentation of their siblings`);
    }
  }
  const text = lines.join('\n') + '\n';
  const problems = parseProblems(text);
  if (problems.length > 0) return { ok: false, reason: `not valid YAML after recovery: ${problems[0]}`, steps };
  return { ok: true, text, steps };
}

// Each document gets at most one top-level apiVersion: a second one starts a new document.
function splitMissingSeparators(lines: string[]): { lines: string[]; count: number } {
  const out: string[] = [];
  let seenApiVersion = false;
  let count = 0;
  for (const l of lines) {
    if (/^---\s*$/.test(l)) seenApiVersion = false;
    else if (/^apiVersion:/.test(l)) {
      if (seenApiVersion) {
        out.push('---');
        count++;
      }
      seenApiVersion = true;
    }
    out.push(l);
  }
  return { lines: out, count };
}

// `metadata:` / `spec:` followed, at the same column, by keys that are not top-level fields of the kind: those keys
// (and everything under them) belong one level deeper.
function nestLostTopLevel(lines: string[], options: RecoverOptions): { lines: string[]; moved: string[] } {
  const out = [...lines];
  const moved: string[] = [];
  const docs: [number, number][] = [];
  let start = 0;
  lines.forEach((l, i) => {
    if (/^---\s*$/.test(l)) {
      docs.push([start, i]);
      start = i + 1;
    }
  });
  docs.push([start, lines.length]);
  for (const [from, to] of docs) {
    const doc = lines.slice(from, to);
    const apiVersion = doc.map((l) => /^apiVersion:\s*(\S+)/.exec(l)?.[1]).find(Boolean);
    const kind = doc.map((l) => /^kind:\s*(\S+)/.exec(l)?.[1]).find(Boolean);
    const allowed = new Set(options.topLevelFields(apiVersion?.replace(/^["']|["']$/g, ''), kind?.replace(/^["']|["']$/g, '')));
    const topKey = (l: string) => /^([A-Za-z_][\w.-]*):(\s|$)/.exec(l)?.[1];
    for (let i = from; i < to; i++) {
      const container = /^(metadata|spec|status|data):\s*$/.exec(lines[i])?.[1];
      if (!container) continue;
      let j = i + 1;
      const misplaced: string[] = [];
      while (j < to) {
        const k = topKey(lines[j]);
        if (k && allowed.has(k)) break;
        if (k) misplaced.push(k);
        j++;
      }
      if (misplaced.length === 0) continue;
      for (let x = i + 1; x < j; x++) if (!isBlank(lines[x])) out[x] = '  ' + lines[x];
      moved.push(...misplaced.map((k) => `${container}.${k}`));
    }
  }
  return { lines: out, moved };
}

// First line flush left, every other line indented by at least k > 0: dedent them by k.
function dedentBody(lines: string[]): { lines: string[]; by: number } {
  const first = lines.findIndex((l) => !isBlank(l));
  if (first < 0 || indentOf(lines[first]) !== 0) return { lines, by: 0 };
  const rest = lines.slice(first + 1).filter((l) => !isBlank(l));
  if (rest.length === 0) return { lines, by: 0 };
  const by = Math.min(...rest.map(indentOf));
  if (by === 0) return { lines, by: 0 };
  return { lines: lines.map((l, i) => (i <= first || isBlank(l) ? l : l.slice(by))), by };
}

// `key: scalar` followed by keys indented deeper than `key`: they are its siblings, shifted by mistake.
function fixOverIndentedKeys(lines: string[]): { lines: string[]; count: number } {
  const out = [...lines];
  let count = 0;
  for (let i = 0; i < out.length; i++) {
    const m = /^(\s*)(- )?[^\s:#-][^:#]*:\s+([^\s|>].*)$/.exec(out[i]);
    if (!m) continue;
    const keyCol = m[1].length + (m[2] ? 2 : 0);
    let j = i + 1;
    while (j < out.length && isBlank(out[j])) j++;
    if (j >= out.length) continue;
    const deeper = indentOf(out[j]);
    if (deeper <= keyCol || !YAML_KEY_RE.test(out[j]) || /^\s*- /.test(out[j])) continue;
    const shift = deeper - keyCol;
    for (let x = j; x < out.length && (isBlank(out[x]) || indentOf(out[x]) >= deeper); x++) {
      if (!isBlank(out[x])) {
        out[x] = out[x].slice(shift);
        if (indentOf(out[x]) === keyCol) count++;
      }
    }
  }
  return { lines: out, count };
}

const norm = (l: string) => l.trim().replace(/\s+/g, ' ');

/**
 * alignWithReference restores the indentation of a flattened block from the same example elsewhere: it aligns the
 * block's lines (longest common subsequence, whitespace-insensitive) with a window of the reference starting at
 * the same first line, takes each matched line's indentation, and lets a differing line take the indentation of
 * the reference line it replaces — but only where the two sides differ line for line (a one-for-one replacement).
 * Any inserted or missing line makes the result ambiguous, and the block is reported unrecoverable.
 */
function alignWithReference(
  flat: string[],
  references: readonly string[],
): { ok: true; lines: string[]; substituted: number } | { ok: false; reason: string } {
  const F = flat.filter((l) => !isBlank(l));
  const R = references.flatMap((t) => t.split('\n').filter((l) => !isBlank(l) && !/^---\s*$/.test(l)));
  const Fn = F.map(norm);
  const Rn = R.map(norm);
  let best: { start: number; pairs: [number, number][] } | undefined;
  for (let s = 0; s < R.length; s++) {
    if (Rn[s] !== Fn[0]) continue;
    const end = Math.min(R.length, s + F.length + 10);
    const pairs = lcs(Fn, Rn, s, end);
    if (!best || pairs.length > best.pairs.length) best = { start: s, pairs };
  }
  if (!best) return { ok: false, reason: `no reference example starts with ${JSON.stringify(F[0])}` };
  const indentFor: (number | undefined)[] = new Array(F.length).fill(undefined);
  for (const [i, j] of best.pairs) indentFor[i] = indentOf(R[j]);
  // Gaps between consecutive matches (and before the first / after the last one).
  const anchors: [number, number][] = [[-1, best.start - 1], ...best.pairs, [F.length, Infinity]];
  let substituted = 0;
  for (let a = 0; a + 1 < anchors.length; a++) {
    const [fi, rj] = anchors[a];
    const [fi2, rj2] = anchors[a + 1];
    const fGap = fi2 - fi - 1;
    if (fGap === 0) continue;
    const rGap = rj2 === Infinity ? fGap : rj2 - rj - 1;
    if (fGap !== rGap || rj + fGap >= R.length) {
      return {
        ok: false,
        reason: `indentation lost and the example differs from the reference around ${JSON.stringify(F[fi + 1])} (${fGap} line(s) here vs ${rGap === Infinity ? '?' : rGap} there), so there is no line-for-line counterpart to take the indentation from`,
      };
    }
    for (let k = 1; k <= fGap; k++) {
      indentFor[fi + k] = indentOf(R[rj + k]);
      substituted++;
    }
  }
  return { ok: true, lines: F.map((l, i) => ' '.repeat(indentFor[i] ?? 0) + l.trim()), substituted };
}

// Longest common subsequence of a (all) and b[from, to), as index pairs.
function lcs(a: string[], b: string[], from: number, to: number): [number, number][] {
  const n = a.length;
  const m = to - from;
  const dp: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = a[i] === b[from + j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[from + j]) {
      pairs.push([i, from + j]);
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}
