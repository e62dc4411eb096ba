// gotemplate.bench.ts: engine throughput on the seed load-balancer template without sprig (printf and index stand
// in for cat|sha1sum and get, as in /work/shared/anchors/tmpl-bench.mjs), so the numbers measure the engine alone.
// The sprig version of the same template is benchmarked by the funcs component.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeJSON, parseCached, Template } from './index.js';

const dir = resolve(import.meta.dirname, '..', '..', 'testdata', 'gotemplate', 'bench');
// Go 1.23 text/template + sprig on this machine (/work/shared/anchors/results-run-all.txt), lb.tmpl with sprig.
const GO_PARSED_ONCE = 121_178;
const GO_PARSE_EACH_TIME = 11_634;

function measure(n: number, f: () => void): { opsPerSec: number; p50us: number; p99us: number } {
  for (let i = 0; i < Math.min(n, 2000); i++) f(); // warm up
  const batch = 100;
  const lat: number[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i += batch) {
    const b0 = process.hrtime.bigint();
    for (let j = 0; j < batch; j++) f();
    lat.push(Number(process.hrtime.bigint() - b0) / 1e3 / batch);
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  return {
    opsPerSec: Math.round(n / secs),
    p50us: Number(lat[Math.floor(lat.length * 0.5)].toFixed(2)),
    p99us: Number(lat[Math.floor(lat.length * 0.99)].toFixed(2)),
  };
}

/** bench measures execute (parsed once), parse+execute, and parseCached+execute. */
export async function bench(): Promise<Record<string, unknown>> {
  const text = readFileSync(join(dir, 'lb-nosprig.tmpl'), 'utf8');
  const json = `{"Resource":${readFileSync(join(dir, 'service.json'), 'utf8')},"Cluster":${readFileSync(join(dir, 'cluster.json'), 'utf8')}}`;
  const data = decodeJSON(json, { numbers: { Resource: 'float64', '*': 'int64' } });
  const parsed = new Template('lb', { missingKey: 'error' }).parse(text);
  const executeParsedOnce = measure(200_000, () => parsed.execute(data));
  const parseAndExecute = measure(20_000, () => new Template('lb', { missingKey: 'error' }).parse(text).execute(data));
  const cachedParseAndExecute = measure(200_000, () => parseCached('lb', text, { missingKey: 'error' }).execute(data));
  const decodeInt64 = measure(20_000, () => decodeJSON(json, { numbers: { Resource: 'float64', '*': 'int64' } }));
  return {
    template: 'testdata/gotemplate/bench/lb-nosprig.tmpl',
    executeParsedOnce,
    parseAndExecute,
    cachedParseAndExecute,
    decodeJSONMixedModes: decodeInt64,
    vsGo: {
      note: 'Go anchors render lb.tmpl with sprig (cat, sha1sum, get); ours is the sprig-free variant: indicative only',
      executeParsedOnce: Number((executeParsedOnce.opsPerSec / GO_PARSED_ONCE).toFixed(2)),
      parseAndExecute: Number((parseAndExecute.opsPerSec / GO_PARSE_EACH_TIME).toFixed(2)),
    },
  };
}
