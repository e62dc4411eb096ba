// template.bench.ts: renders/s of the seed load-balancer template (testdata/funcs/bench: lb.tmpl with service.json
// as .Resource and cluster.json as .Cluster), next to Go text/template + Sprig measured in the same run when a Go
// toolchain and Debian's Sprig sources are present (built into a temp dir here, never in tests), or the recorded
// anchor otherwise (shared/anchors/results-run-all.txt).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeJSON, parseCached, Template, type GoValue } from '../gotemplate/index.js';
import { eventFuncMap } from './funcmap.js';

const root = resolve(import.meta.dirname, '..', '..');
const fixtures = join(root, 'testdata', 'funcs', 'bench');
const GO = '/usr/lib/go-1.23/bin/go';
const EXPECTED_NAME = 'name: "lb-0be1bf5950be71d6686bca19c00cc6f204fcb3f4"';

/** Recorded Go anchors (shared/anchors/results-run-all.txt, same machine class). */
const RECORDED = { parsedOnce: 121178, parseRender: 11634, funcMapParseRender: 9582 };

interface Measure {
  opsPerSec: number;
  runs: number[];
  p50us: number;
  p99us: number;
}

function measure(n: number, f: () => void): Measure {
  for (let i = 0; i < Math.min(n, 2000); i++) f(); // warm-up
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    runs.push(Math.round(n / ((performance.now() - t0) / 1000)));
  }
  // Latency percentiles from a separate, individually timed sample.
  const sample = Math.min(n, 20000);
  const lat = new Float64Array(sample);
  for (let i = 0; i < sample; i++) {
    const t0 = performance.now();
    f();
    lat[i] = (performance.now() - t0) * 1000;
  }
  lat.sort();
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    opsPerSec: sorted[1],
    runs,
    p50us: Number(lat[Math.floor(sample * 0.5)].toFixed(2)),
    p99us: Number(lat[Math.floor(sample * 0.99)].toFixed(2)),
  };
}

// A template-only Go program equivalent to the anchor's text/template part (ours; built in GOPATH mode).
const GO_MAIN = `package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"text/template"
	"time"

	"github.com/Masterminds/sprig"
)

func rate(n int, f func()) float64 {
	start := time.Now()
	for i := 0; i < n; i++ {
		f()
	}
	return float64(n) / time.Since(start).Seconds()
}

func median(f func() float64) float64 {
	rs := []float64{f(), f(), f()}
	sort.Float64s(rs)
	return rs[1]
}

func main() {
	dir := os.Args[1]
	n, _ := strconv.Atoi(os.Args[2])
	read := func(name string) []byte { b, err := os.ReadFile(dir + "/" + name); if err != nil { panic(err) }; return b }
	var svc, cluster map[string]interface{}
	json.Unmarshal(read("service.json"), &svc)
	json.Unmarshal(read("cluster.json"), &cluster)
	data := map[string]interface{}{"Resource": svc, "Cluster": cluster}
	src := string(read("lb.tmpl"))
	funcs := sprig.TxtFuncMap()
	tmpl := template.Must(template.New("lb").Option("missingkey=error").Funcs(funcs).Parse(src))
	var buf bytes.Buffer
	once := median(func() float64 { return rate(n, func() { buf.Reset(); if err := tmpl.Execute(&buf, data); err != nil { panic(err) } }) })
	parse := median(func() float64 {
		return rate(n/5, func() {
			t := template.Must(template.New("lb").Option("missingkey=error").Funcs(funcs).Parse(src))
			buf.Reset()
			if err := t.Execute(&buf, data); err != nil { panic(err) }
		})
	})
	full := median(func() float64 {
		return rate(n/20, func() {
			t := template.Must(template.New("lb").Option("missingkey=error").Funcs(sprig.TxtFuncMap()).Parse(src))
			buf.Reset()
			if err := t.Execute(&buf, data); err != nil { panic(err) }
		})
	})
	fmt.Printf("{\\"parsedOnce\\":%.0f,\\"parseRender\\":%.0f,\\"funcMapParseRender\\":%.0f,\\"go\\":%q}\\n", once, parse, full, "go")
}
`;

function goAnchor(n: number): { source: string; parsedOnce: number; parseRender: number; funcMapParseRender: number; note?: string } {
  const sprigSrc = '/usr/share/gocode/src/github.com/Masterminds/sprig';
  if (!existsSync(GO) || !existsSync(sprigSrc)) {
    return { source: 'recorded (shared/anchors/results-run-all.txt)', ...RECORDED, note: `${GO} or Debian's Sprig sources not found` };
  }
  const tmp = mkdtempSync(join(tmpdir(), 'ripple-gobench-'));
  try {
    const pkg = join(tmp, 'src', 'tmplbench');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'main.go'), GO_MAIN);
    const env = {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: `${tmp}:/usr/share/gocode`,
      GOFLAGS: '',
      GOPROXY: 'off',
      CGO_ENABLED: '0',
      GOCACHE: join(tmp, 'cache'),
    };
    const build = spawnSync(GO, ['build', '-o', join(tmp, 'tmplbench'), '.'], { cwd: pkg, env, encoding: 'utf8' });
    if (build.status !== 0) return { source: 'recorded', ...RECORDED, note: `go build failed: ${build.stderr.slice(0, 300)}` };
    const run = spawnSync(join(tmp, 'tmplbench'), [fixtures, String(n)], { encoding: 'utf8' });
    if (run.status !== 0) return { source: 'recorded', ...RECORDED, note: `go bench failed: ${run.stderr.slice(0, 300)}` };
    const r = JSON.parse(run.stdout) as { parsedOnce: number; parseRender: number; funcMapParseRender: number };
    return { source: `measured now (${spawnSync(GO, ['version'], { encoding: 'utf8' }).stdout.trim()}, Debian sprig)`, ...r };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** bench measures Ripple's template renders/s of the seed load-balancer template against the Go anchor. */
export async function bench(): Promise<Record<string, unknown>> {
  const n = Number(process.env.RIPPLE_BENCH_N ?? 100000);
  const src = readFileSync(join(fixtures, 'lb.tmpl'), 'utf8');
  const raw = `{"Resource":${readFileSync(join(fixtures, 'service.json'), 'utf8')},"Cluster":${readFileSync(join(fixtures, 'cluster.json'), 'utf8')}}`;
  const data: GoValue = decodeJSON(raw, { numbers: 'float64' });
  const clock = { now: () => Date.now() };
  const funcs = eventFuncMap({ clock });
  const tmpl = new Template('lb', { funcs, missingKey: 'error' });
  tmpl.parse(src);
  const out = tmpl.execute(data);
  if (!out.startsWith(EXPECTED_NAME)) throw new Error(`unexpected rendering:\n${out}`);

  const parsedOnce = measure(n, () => tmpl.execute(data));
  const cached = measure(n, () => parseCached('lb', src, { funcs, missingKey: 'error' }).execute(data));
  const parseRender = measure(Math.floor(n / 5), () => {
    const t = new Template('lb', { funcs, missingKey: 'error' });
    t.parse(src);
    t.execute(data);
  });
  const funcMapParseRender = measure(Math.floor(n / 20), () => {
    const t = new Template('lb', { funcs: eventFuncMap({ clock }), missingKey: 'error' });
    t.parse(src);
    t.execute(data);
  });
  const funcMapBuild = measure(Math.floor(n / 20), () => eventFuncMap({ clock }));
  const go = goAnchor(n);
  const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
  return {
    template: 'testdata/funcs/bench/lb.tmpl (cat|sha1sum, range over ports, get, index) with the event-manager function map',
    n,
    ripple: { parsedOnce, parseCachedThenRender: cached, parseRender, funcMapParseRender, funcMapBuild },
    go,
    ratioToGo: {
      parsedOnce: ratio(parsedOnce.opsPerSec, go.parsedOnce),
      parseRender: ratio(parseRender.opsPerSec, go.parseRender),
      funcMapParseRender: ratio(funcMapParseRender.opsPerSec, go.funcMapParseRender),
    },
    target: { parsedOnce: 120000, met: parsedOnce.opsPerSec >= 120000 },
  };
}
