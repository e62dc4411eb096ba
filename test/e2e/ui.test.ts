// End to end, in a real browser: `ripple up --demo loadbalancer` as a child process, its dashboard (URL read from
// what it prints) driven by Playwright (playwright-core) in Debian's Chromium. Every page renders; the lineage of the
// demo's deployed object (svc-a's status, written back into cluster-a) is complete and matches what kubectl sees; a
// failure caused with kubectl appears on the open page without a reload; the pages work from the keyboard. One
// screenshot per page goes to test/e2e/screenshots/ (gitignored; docs/img/ holds copies for the README).
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { kubectlFor, startRipple, startRippleUp, tempDataDir, until, type K8sObject, type Kubectl, type RippleUp } from './ripple-up.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(import.meta.dirname, 'screenshots');
const TRIGGER = 'eventtrigger.lib.projectsveltos.io/eventtriggername=loadbalancer-class-handler';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
let k: Kubectl;
let browser: BrowserContext;
let profileDir: string;
let page: Page;
let base: string;

before(async () => {
  if (!existsSync(CHROMIUM)) return;
  data = tempDataDir();
  up = startRippleUp(data.dir, ['--demo', 'loadbalancer']);
  const m = await up.waitFor(/dashboard\s+(http:\/\/127\.0\.0\.1:\d+\/)/);
  base = m[1];
  await up.waitFor(/Ripple is running/, { timeoutMs: 60_000 });
  k = kubectlFor(up.kubeconfig, data.dir);
  mkdirSync(SHOTS, { recursive: true });
  profileDir = mkdtempSync(join(tmpdir(), 'ripple-chromium-'));
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1360, height: 900 },
  });
  page = browser.pages()[0] ?? (await browser.newPage());
});

after(async () => {
  await browser?.close();
  await up?.stop('SIGTERM');
  data?.remove();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

async function open(hash: string): Promise<void> {
  await page.goto(`${base}#/${hash}`);
  await page.locator('main h1').waitFor();
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

test('dashboard of ripple up --demo loadbalancer: pages, lineage, live failures, keyboard', { skip, timeout: 180_000 }, async () => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  const generated = await until('the generated ClusterProfile', () => k.items('mgmt', ['clusterprofiles', '-l', TRIGGER]), (l) => l.length === 1);
  const profileName = generated[0].metadata.name;
  const lbs = (await k.items('mgmt', ['clusterprofiles'])).find((p) => p.metadata.name.startsWith('lbs-'))!;
  const instantiated = await k.items('mgmt', ['configmaps', '-n', 'projectsveltos', '-l', TRIGGER]);
  assert.equal(instantiated.length, 2);

  // Failures first: the demo's misspelled-annotation warning, with its exact message and object.
  await open('');
  await page.getByText('uses the misspelled annotation projectsveltos.io/subressources').waitFor();
  assert.match(await page.locator('[data-testid=failure]').first().innerText(), /ClusterSummary cluster-a\/lbs-/);
  await page.locator('.dot.on').waitFor();
  await shot('failures');

  // Fleet, filtered on the server by label.
  await open('fleet');
  await page.locator('.vrow', { hasText: 'cluster-a' }).waitFor();
  assert.equal(await page.locator('.vrow').count(), 2);
  await page.getByRole('searchbox', { name: 'filter clusters' }).fill('env=prod');
  await page.getByText('1 of 2').waitFor();
  assert.deepEqual(await page.locator('.vrow b').allInnerTexts(), ['cluster-a']);
  await page.getByRole('searchbox', { name: 'filter clusters' }).fill('');
  await page.locator('.vrow', { hasText: 'mgmt' }).waitFor();
  await page.getByRole('searchbox', { name: 'filter clusters' }).blur();
  await shot('fleet');

  // Events: what the EventSource matches in cluster-a.
  await open('events');
  const es = page.getByRole('region', { name: 'EventSource loadbalancer-class-handler' });
  await es.getByText('Service test/svc-a').waitFor();
  await shot('events');

  // EventTriggers and what they generated.
  await open('triggers');
  const t = page.getByRole('region', { name: 'EventTrigger loadbalancer-class-handler' });
  await t.getByText(profileName).waitFor();
  for (const cm of instantiated) await t.getByText(`projectsveltos/${cm.metadata.name}`).waitFor();
  await shot('triggers');

  // Add-ons per cluster, then follow svc-a's lineage link (navigation inside the app).
  await open('addons');
  await page.getByText('adopted: status').waitFor();
  await shot('addons');
  await page.getByRole('link', { name: 'lineage of Service test/svc-a in cluster-a' }).click();
  await page.locator('.graph .node').first().waitFor();
  const labels = await page.locator('.graph .node').evaluateAll((ns) => ns.map((n) => n.getAttribute('aria-label') ?? ''));
  const has = (re: RegExp) => assert.ok(labels.some((l) => re.test(l)), `no node ${re} in ${JSON.stringify(labels, null, 1)}`);
  has(/^event: Service test\/svc-a in cluster-a at \d\d:\d\d:\d\d\.\d{3}$/);
  has(/^EventReport: EventReport cluster-a\/sveltos--loadbalancer-class-handler--cluster-a in mgmt/);
  has(/^EventSource: EventSource loadbalancer-class-handler in mgmt$/);
  has(/^EventTrigger: EventTrigger loadbalancer-class-handler in mgmt$/);
  for (const cm of instantiated) has(new RegExp(`^instantiated: ConfigMap projectsveltos/${cm.metadata.name} in mgmt at `));
  has(new RegExp(`^ClusterProfile: ClusterProfile ${profileName} in mgmt at `));
  has(new RegExp(`^ClusterSummary: ClusterSummary cluster-a/${profileName}-sveltos-cluster-a in mgmt at .*Provisioned$`));
  has(new RegExp(`^ClusterProfile: ClusterProfile ${lbs.metadata.name} in mgmt at `));
  has(new RegExp(`^ClusterSummary: ClusterSummary cluster-a/${lbs.metadata.name}-sveltos-cluster-a in mgmt at `));
  has(/^referenced: ConfigMap projectsveltos\/loadbalancer-class-handler-status in mgmt$/);
  has(/^deployed: Service test\/svc-a in cluster-a at /);
  // The upstream load-balancer Service the status comes from (templateResourceRefs), deployed by the first profile.
  has(new RegExp(`^deployed: Service cluster-a/${lbs.metadata.name.replace('lbs-', 'lb-')} in mgmt at `));
  assert.equal(labels.length, 13, JSON.stringify(labels, null, 1));
  assert.equal(await page.locator('.warnbox').count(), 0, 'the chain is complete');
  // The dashboard watched it all happen: every timed hop is in milliseconds, none approximated from timestamps.
  const latencies = await page.locator('[data-testid=hop] td:nth-child(4)').allInnerTexts();
  assert.ok(latencies.filter((l) => /^\d+ ms$/.test(l)).length >= 8, JSON.stringify(latencies));
  assert.ok(!latencies.some((l) => l.startsWith('≈')), JSON.stringify(latencies));
  await shot('lineage');
  await page.locator('.graph').screenshot({ path: join(SHOTS, 'lineage-graph.png') });

  // The reverse: from the event, everything it caused, the Service in mgmt included.
  await page.getByRole('link', { name: /^event: Service test\/svc-a in cluster-a/ }).click();
  await page.getByText('caused: everything generated').waitFor();
  await page.locator(`.graph .node[aria-label^="deployed: Service cluster-a/${lbs.metadata.name.replace('lbs-', 'lb-')} in mgmt"]`).waitFor();
  await shot('lineage-downstream');

  // Plots from the metrics.
  await open('metrics');
  await page.getByRole('heading', { name: 'ripple_event_to_addon_seconds' }).waitFor();
  await page.locator('.plot', { hasText: 'ripple_event_to_addon_seconds' }).getByText(/\d+ observations/).waitFor();
  // The latency plot has points (not its "no event yet" text): the event → add-on latency was sampled.
  await page.locator('.plot', { hasText: 'Event → add-on latency over time' }).locator('svg').waitFor();
  await shot('metrics');

  // A failure caused now shows up on the open Failures page — live, without a reload.
  await open('');
  await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));
  await k.applyYaml(
    'mgmt',
    `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: broken-addon
spec:
  clusterSelector:
    matchLabels:
      env: prod
  policyRefs:
  - kind: ConfigMap
    namespace: default
    name: does-not-exist
`,
  );
  const card = page.locator('[data-testid=failure]', { hasText: 'does-not-exist' }).first();
  await card.waitFor({ timeout: 20_000 });
  assert.match(await card.innerText(), /ClusterSummary cluster-a\/broken-addon-sveltos-cluster-a/);
  assert.match(await card.innerText(), /status\.featureSummaries\[Resources\]/);
  assert.equal(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 42, 'no page reload');
  await shot('failures-live');

  // Keyboard: Tab cycles through the page; after the skip link come the navigation links; Enter follows one.
  const active = () => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } }).document.activeElement?.textContent ?? '');
  const seen: string[] = [];
  for (let i = 0; i < 40 && seen.at(-1) !== 'Fleet'; i++) {
    await page.keyboard.press('Tab');
    seen.push(await active());
  }
  const skipAt = seen.indexOf('Skip to content');
  assert.ok(skipAt >= 0, JSON.stringify(seen));
  assert.deepEqual(seen.slice(skipAt + 1, skipAt + 3).map((t) => t.replace(/\d+$/, '')), ['Failures', 'Fleet'], JSON.stringify(seen));
  await page.keyboard.press('Enter');
  await page.locator('main h1', { hasText: 'Fleet' }).waitFor();

  assert.deepEqual(errors, [], 'no script errors in the page');
  const svc = await k.json<K8sObject>(['--context', 'cluster-a', '-n', 'test', 'get', 'service', 'svc-a']);
  assert.ok(svc.metadata.annotations?.['projectsveltos.io/owner-name'] === lbs.metadata.name, 'the lineage names the profile kubectl sees as owner');
});

test('ripple manager --ui-port serves the dashboard next to a control plane it runs against any API server', { timeout: 90_000 }, async () => {
  const d = tempDataDir();
  const server = startRipple(d.dir, ['apiserver', '--data-dir', d.dir, '--cluster', 'mgmt']);
  let manager: RippleUp | undefined;
  try {
    await server.waitFor(/kubectl --context mgmt get namespaces/);
    manager = startRipple(d.dir, ['manager', '--kubeconfig', server.kubeconfig, '--context', 'mgmt', '--install-crds', '--register-management-cluster', '--ui-port', '0']);
    const url = (await manager.waitFor(/ripple manager: dashboard on (http:\/\/127\.0\.0\.1:\d+\/) \(read-only\)/))[1];
    const clusters = await until(
      'mgmt/mgmt on the dashboard',
      async () => (await (await fetch(new URL('/api/clusters', url))).json()) as { rows: { id: string; ready: boolean }[] },
      (p) => p.rows.some((c) => c.id === 'mgmt' && c.ready),
    );
    assert.deepEqual(clusters.rows.map((c) => c.id), ['mgmt']);
    const r = await fetch(url, { method: 'POST' });
    assert.equal(r.status, 405, 'read-only');
    assert.deepEqual(await manager.stop('SIGTERM'), { code: 0, signal: null });
  } finally {
    await manager?.stop('SIGKILL');
    await server.stop('SIGTERM');
    d.remove();
  }
});
