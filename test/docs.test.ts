// docs/ and README.md: the generated pages (commands, demos) are up to date, every relative link points at a file
// that exists (and at a heading that exists, for #anchors into Markdown), and every `ripple …` command example —
// in code blocks and inline code — names a real command with flags that command defines (read from its --help, the
// same definitions shell completion uses), enum values included.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { findCommand, loadCommands, type Command } from '../src/cli/index.js';
import { flagsOf } from '../src/cli/completion.js';
import { generatedDocs } from '../scripts/docs.js';

const root = resolve(import.meta.dirname, '..');
const DOCS = join(root, 'docs');

function markdown(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? markdown(p) : p.endsWith('.md') ? [p] : [];
  });
}
const FILES = [join(root, 'README.md'), ...markdown(DOCS)];

/** slug is GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** anchors lists the heading anchors of a Markdown file (outside code blocks), with GitHub's -1, -2 for repeats. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const s = slug(m[1]);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** withoutCode drops fenced blocks and inline code, where link syntax is only an example. */
function withoutCode(text: string): string {
  return text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
}

test('docs/ exists with the pages a user needs, and README.md links to it', () => {
  for (const p of ['README.md', 'getting-started.md', 'concepts.md', 'production-install.md', 'migrating-from-sveltos.md', 'differences-from-sveltos.md', 'scale.md', 'commands/README.md', 'demos/README.md']) {
    assert.ok(existsSync(join(DOCS, p)), `docs/${p} is missing`);
  }
  assert.match(readFileSync(join(root, 'README.md'), 'utf8'), /\]\(docs\/README\.md\)/);
  assert.match(readFileSync(join(DOCS, 'concepts.md'), 'utf8'), /```mermaid\n/, 'concepts.md has a diagram');
});

test('the generated pages are up to date (npx tsx scripts/docs.ts)', async () => {
  const docs = await generatedDocs();
  for (const [p, text] of docs) {
    const file = join(DOCS, p);
    assert.ok(existsSync(file), `docs/${p} is missing: run npx tsx scripts/docs.ts`);
    assert.equal(readFileSync(file, 'utf8'), text, `docs/${p} is out of date: run npx tsx scripts/docs.ts`);
  }
  for (const dir of ['commands', 'demos']) {
    for (const f of readdirSync(join(DOCS, dir))) assert.ok(docs.has(`${dir}/${f}`), `docs/${dir}/${f} is not generated any more: run npx tsx scripts/docs.ts`);
  }
});

test('every relative link and anchor in docs/ and README.md resolves', () => {
  const broken: string[] = [];
  let n = 0;
  for (const file of FILES) {
    const text = withoutCode(readFileSync(file, 'utf8'));
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      n++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(root, file)}: ${target}`;
      if (!existsSync(dest)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor !== undefined && dest.endsWith('.md') && !anchors(dest).has(anchor)) broken.push(`${where} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(n > 50, `only ${n} relative links checked`);
});

// ---- command examples ----

/** words splits a shell command line into words (quotes kept together), up to a pipe, redirection, ; && || or #. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const m of line.matchAll(re)) {
    const w = m[1] ?? m[2] ?? m[3];
    if (m[3] !== undefined && (/^(\||&&|\|\||;|>|>>|<|2>|#)/.test(w) || w.startsWith('<('))) break;
    out.push(w);
  }
  return out;
}

/** examples returns every `ripple …` example: file, line number and the words after `ripple`. */
function examples(): { where: string; args: string[] }[] {
  const out: { where: string; args: string[] }[] = [];
  for (const file of FILES) {
    const lines = readFileSync(file, 'utf8').split('\n');
    let fence: string | undefined;
    lines.forEach((line, i) => {
      const where = `${relative(root, file)}:${i + 1}`;
      const f = /^\s*```(\w*)/.exec(line);
      if (f) {
        fence = fence === undefined ? f[1] : undefined;
        return;
      }
      if (fence !== undefined) {
        if (!['sh', 'bash', 'console', 'shell'].includes(fence)) return;
        // Continuation lines are joined; `ripple` in command position is an example (line start, after | ; && $( <().
        let text = line;
        for (let j = i; text.endsWith('\\') && j + 1 < lines.length; j++) text = text.slice(0, -1) + ' ' + lines[j + 1];
        if (i > 0 && lines[i - 1].endsWith('\\')) return;
        for (const m of text.matchAll(/(?:^\s*|[|;&(]\s*)(?:npx )?ripple (.*)$/g)) out.push({ where, args: words(m[1]) });
        return;
      }
      for (const m of line.matchAll(/`(?:npx )?ripple ([^`]*)`/g)) {
        const body = m[1].trim();
        if (body.endsWith('…') || body === '') continue;
        // `ripple get clusters|eventsources|…`: one example per alternative (`|` without spaces is not a pipe).
        if (/\S\|\S/.test(body) && !/\s\|\s/.test(body)) {
          const segs = body.split('|');
          const first = segs[0].split(/\s+/);
          const prefix = first.slice(0, -1).join(' ');
          for (const s of segs) out.push({ where, args: words(s === segs[0] ? s : `${prefix} ${s}`) });
        } else out.push({ where, args: words(body) });
      }
    });
  }
  return out;
}

/** PLACEHOLDER: a word standing for a value in prose (`ripple COMMAND --help`, `--demo NAME`). */
const PLACEHOLDER = /^(?:[A-Z][A-Z0-9_./-]*|\.\.\.|…)$/;

function checkExample(commands: Command[], args: string[]): string | undefined {
  if (args.length === 0) return undefined;
  if (args.every((a) => ['--help', '-h', '--version', '-v'].includes(a))) return undefined;
  if (PLACEHOLDER.test(args[0])) return undefined; // `ripple COMMAND --help`
  const found = findCommand(commands, args);
  if (!found) return `no command ${JSON.stringify(args.slice(0, 2).join(' '))}`;
  const flags = flagsOf(found.command.usage);
  const rest = found.rest;
  if (rest.length > 0 && PLACEHOLDER.test(rest[0]) && /^(SUBCOMMAND|COMMAND)$/.test(rest[0])) return undefined;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i];
    if (w === '--') break;
    if (!w.startsWith('-') || w === '-') continue;
    if (w === '--help' || w === '-h') continue;
    const eq = w.indexOf('=');
    const name = eq > 0 ? w.slice(0, eq) : w;
    const long = name.startsWith('--');
    const spec = long ? flags.find((f) => `--${f.long}` === name || `--no-${f.long}` === name) : flags.find((f) => `-${f.short}` === name);
    if (!spec) return `ripple ${found.command.path.join(' ')} has no flag ${name}`;
    if (!spec.takesValue) continue;
    const value = eq > 0 ? w.slice(eq + 1) : rest[++i];
    if (value === undefined) return `${name} needs a value`;
    if (spec.values.length > 0 && !PLACEHOLDER.test(value) && !spec.values.includes(value) && !/^[<$]/.test(value)) return `${name} ${value}: not one of ${spec.values.join(', ')}`;
  }
  return undefined;
}

test('every `ripple …` example in docs/ and README.md is a real command with real flags', async () => {
  const commands = await loadCommands();
  const all = examples();
  assert.ok(all.length >= 60, `only ${all.length} examples found`);
  const bad = all.map((e) => ({ ...e, problem: checkExample(commands, e.args) })).filter((e) => e.problem);
  assert.deepEqual(bad.map((b) => `${b.where}: ripple ${b.args.join(' ')} — ${b.problem}`), []);
});

test('the example check can fail: unknown commands, flags and enum values are caught', async () => {
  const commands = await loadCommands();
  assert.match(checkExample(commands, ['get', 'clustrs']) ?? '', /no command/);
  assert.match(checkExample(commands, ['manager', '--agent-mod', 'collect']) ?? '', /no flag --agent-mod/);
  assert.match(checkExample(commands, ['manager', '--agent-mode', 'push']) ?? '', /not one of agentless, collect/);
  assert.match(checkExample(commands, ['up', '--demo']) ?? '', /needs a value/);
  assert.equal(checkExample(commands, ['manifests', 'all', '--set', 'manager.replicas=3', '-n', 'ripple']), undefined);
});
