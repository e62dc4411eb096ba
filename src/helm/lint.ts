// lint.ts: `helm lint` — the checks users run before publishing: Chart.yaml validity and recommendations, values
// and schema, and a render of every template (lint mode: required/fail do not fail) with parse and YAML errors.
// Go: pkg/lint/rules (chartfile.go, values.go, template.go), reduced to the checks that catch real mistakes.
import { isCompatibleRange } from '../funcs/index.js';
import { decodeText, loadChartFiles, type ChartFile } from './chart.js';
import { defaultCapabilities, renderChart, type RenderOptions } from './action.js';
import { HelmError } from './errors.js';
import { newMap } from './values.js';
import type { GoMap } from '../gotemplate/index.js';

/** LintSeverity orders lint messages as Helm does. */
export type LintSeverity = 'INFO' | 'WARNING' | 'ERROR';

/** LintMessage is one finding: `[SEVERITY] path: text`. */
export interface LintMessage {
  severity: LintSeverity;
  path: string;
  text: string;
}

/** lintChart lints a chart given as files; values are the user's values (optional). */
export function lintChart(files: readonly ChartFile[], values: GoMap = newMap(), namespace = 'default'): LintMessage[] {
  const out: LintMessage[] = [];
  const chartYaml = files.find((f) => f.name === 'Chart.yaml');
  if (chartYaml === undefined) {
    out.push({ severity: 'ERROR', path: 'Chart.yaml', text: 'file does not exist' });
    return out;
  }
  let chart;
  try {
    chart = loadChartFiles(files);
  } catch (e) {
    if (e instanceof HelmError) {
      const path = /values\.yaml/.test(e.message) ? 'values.yaml' : 'Chart.yaml';
      out.push({ severity: 'ERROR', path, text: e.message });
      return out;
    }
    throw e;
  }
  const md = chart.metadata!;
  if (md.apiVersion !== 'v1' && md.apiVersion !== 'v2') out.push({ severity: 'ERROR', path: 'Chart.yaml', text: `apiVersion '${md.apiVersion}' is not valid. The value must be either "v1" or "v2"` });
  if (md.icon === '') out.push({ severity: 'INFO', path: 'Chart.yaml', text: 'icon is recommended' });
  if (md.kubeVersion !== '' && !isCompatibleRange(md.kubeVersion, '0.0.0') && !/^[<>=~^!\d.,\s|xX*v-]+$/.test(md.kubeVersion)) {
    out.push({ severity: 'ERROR', path: 'Chart.yaml', text: `kubeVersion '${md.kubeVersion}' is not a valid SemVerV2 constraint` });
  }
  if (!files.some((f) => f.name === 'values.yaml')) out.push({ severity: 'INFO', path: 'values.yaml', text: 'file does not exist' });
  if (chart.schema !== null) {
    try {
      JSON.parse(decodeText(chart.schema));
    } catch (e) {
      out.push({ severity: 'ERROR', path: 'values.schema.json', text: `invalid JSON: ${(e as Error).message}` });
    }
  }
  if (md.type === 'library') return out;
  if (!files.some((f) => f.name.startsWith('templates/'))) out.push({ severity: 'INFO', path: 'templates/', text: 'directory does not exist' });
  const opts: RenderOptions = {
    values,
    release: { name: 'test-release', namespace, revision: 1, isInstall: true, isUpgrade: false },
    capabilities: defaultCapabilities(),
    engine: { lintMode: true, info: () => {} },
  };
  try {
    renderChart(chart, opts);
  } catch (e) {
    if (e instanceof HelmError) {
      const path = e.code === 'schema' ? 'values.yaml' : 'templates/';
      out.push({ severity: 'ERROR', path, text: e.message });
    } else throw e;
  }
  return out;
}
