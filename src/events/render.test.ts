// render.test.ts: what one (trigger, cluster) generates for the events of a report — pure, no server.
import { strict as assert } from 'node:assert';
import { Buffer } from 'node:buffer';
import { describe, test } from 'node:test';
import type { EventReport, EventTriggerSpec } from '../api/index.js';
import { eventFuncMap } from '../funcs/index.js';
import { RippleAnnotations } from './naming.js';
import { renderEvents, type GeneratedObject, type RenderResult, type SourceObject } from './render.js';
import { reportEvents } from './report-events.js';
import { encodeEventReportResources } from '../agent/index.js';

const funcs = eventFuncMap({ clock: { now: () => 0 } });
const cluster = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', metadata: { namespace: 'ns1', name: 'c1', labels: { env: 'prod', region: 'eu' } }, spec: { x: 3 } };
const svc = (name: string, port = 443) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'app', name, labels: { tier: 'web' } }, spec: { ports: [{ port }] } });

function cm(name: string, data: Record<string, string>, annotations: Record<string, string> = {}, namespace = 'default'): SourceObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations }, data };
}
function secret(name: string, data: Record<string, string>, type = 'addons.projectsveltos.io/cluster-profile', annotations: Record<string, string> = {}): SourceObject {
  const enc: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) enc[k] = Buffer.from(v).toString('base64');
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default', annotations }, data: enc, type };
}

function render(spec: Partial<EventTriggerSpec>, sources: SourceObject[], resources: object[], o: { labels?: Record<string, string>; cloudEvents?: object[] } = {}): RenderResult {
  const report = {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventReport',
    metadata: { name: 'r', namespace: 'ns1' },
    spec: {
      clusterName: 'c1',
      clusterNamespace: 'ns1',
      clusterType: 'Sveltos',
      eventSourceName: 'es',
      resources: encodeEventReportResources(resources),
      matchingResources: resources.map((r) => {
        const x = r as { apiVersion: string; kind: string; metadata: { namespace: string; name: string } };
        return { apiVersion: x.apiVersion, kind: x.kind, namespace: x.metadata.namespace, name: x.metadata.name };
      }),
      cloudEvents: o.cloudEvents?.map((c) => Buffer.from(JSON.stringify(c)).toString('base64')),
    },
  } as EventReport;
  const full: EventTriggerSpec = { eventSourceName: 'es', sourceClusterSelector: { matchLabels: { env: 'prod' } }, ...spec };
  return renderEvents(
    {
      trigger: { name: 'trig', kind: 'EventTrigger', spec: full, labels: o.labels ?? {}, annotations: {} },
      cluster: { type: 'Sveltos', namespace: 'ns1', name: 'c1', apiVersion: cluster.apiVersion, kind: cluster.kind },
      clusterJSON: JSON.stringify(cluster),
      eventSourceName: 'es',
      funcs,
      lookup: (kind, ns, name) => sources.find((s) => s.kind === kind && s.metadata.namespace === ns && s.metadata.name === name),
      namespace: 'projectsveltos',
    },
    reportEvents(report, full.oneForEvent === true).events,
  );
}

const only = (r: RenderResult) => {
  assert.equal(r.events.length, 1);
  return r.events[0];
};
const issueOf = (r: RenderResult) => only(r).issues.map((i) => `${i.code}: ${i.message}`).join('\n');
const spec = (o: GeneratedObject | undefined) => o?.spec as Record<string, unknown>;

describe('template data', () => {
  test('.MatchingResource is a corev1.ObjectReference struct (capitalised fields), .Resource a map', () => {
    const r = render({ oneForEvent: true, profileNameFormat: '{{ .MatchingResource.Kind | lower }}-{{ .MatchingResource.Name }}-{{ .Resource.metadata.labels.tier }}' }, [], [svc('a')]);
    assert.equal(only(r).profile?.metadata.name, 'service-a-web');
  });

  test('oneForEvent true has no .Resources: the error reads like Go', () => {
    const r = render({ oneForEvent: true, profileNameFormat: '{{ len .Resources }}' }, [], [svc('a')]);
    assert.match(issueOf(r), /TemplateExec: profileNameFormat: template: trig:1:7: executing "trig" at <.Resources>: can't evaluate field Resources in type controllers.currentObject; .Resources is set only for all events together: set oneForEvent: false on the EventTrigger, or use .Resource$/);
  });

  test('.Resource without oneForEvent: the error names the fix', () => {
    const r = render({ oneForEvent: false, profileNameFormat: '{{ .Resource.metadata.name }}' }, [], [svc('a')]);
    assert.match(issueOf(r), /can't evaluate field Resource in type controllers.currentObjects; .Resource is set only for one event at a time: set oneForEvent: true on the EventTrigger, or range over .Resources$/);
  });

  test('oneForEvent false: .MatchingResources is []v1.ObjectReference, .Resources the collected maps', () => {
    const r = render({ oneForEvent: false, profileNameFormat: 'p-{{ len .MatchingResources }}-{{ (index .MatchingResources 1).Name }}-{{ printf "%T" .MatchingResources }}' }, [], [svc('a'), svc('b')]);
    assert.match(issueOf(r), /not a valid ClusterProfile name/, 'the type name is printed into the name');
    const ok = render({ oneForEvent: false, profileNameFormat: 'p-{{ len .MatchingResources }}-{{ (index .MatchingResources 1).Name }}' }, [], [svc('a'), svc('b')]);
    assert.equal(only(ok).profile?.metadata.name, 'p-2-b');
  });

  test('.Cluster is the cluster object with int64 numbers', () => {
    const r = render({ oneForEvent: true, profileNameFormat: '{{ if eq .Cluster.spec.x 3 }}three{{ end }}-{{ .Cluster.metadata.labels.region }}' }, [], [svc('a')]);
    assert.equal(only(r).profile?.metadata.name, 'three-eu');
  });
});

describe('ClusterProfile', () => {
  test('targets the source cluster by default, with the labels of §4.3 and deterministic name', () => {
    const r = render({ oneForEvent: true, syncMode: 'ContinuousWithDriftDetection', tier: 50, dependsOn: ['base'], patchesFrom: [{ kind: 'ConfigMap', name: 'p' }] }, [], [svc('a')], {
      labels: { 'projectsveltos.io/serviceaccount-name': 'eng', other: 'x' },
    });
    const p = only(r).profile!;
    assert.match(p.metadata.name, /^sveltos-[0-9a-z]{20}$/);
    assert.equal(render({ oneForEvent: true }, [], [svc('a')]).events[0].profile?.metadata.name, p.metadata.name, 'same inputs, same name');
    assert.deepEqual(p.metadata.labels, {
      'eventtrigger.lib.projectsveltos.io/eventtriggername': 'trig',
      'eventtrigger.lib.projectsveltos.io/clusterNamespace': 'ns1',
      'eventtrigger.lib.projectsveltos.io/clustername': 'c1',
      'eventtrigger.lib.projectsveltos.io/clustertype': 'Sveltos',
      'eventtrigger.lib.projectsveltos.io/eventreportname': 'es',
      'eventtrigger.lib.projectsveltos.io/eventsourcename': 'es',
      'eventtrigger.lib.projectsveltos.io/resourcename': 'a',
      'eventtrigger.lib.projectsveltos.io/resourcenamespace': 'app',
      'projectsveltos.io/serviceaccount-name': 'eng',
    });
    assert.deepEqual(spec(p).clusterRefs, [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'ns1', name: 'c1' }]);
    assert.equal(spec(p).clusterSelector, undefined);
    assert.equal(spec(p).syncMode, 'ContinuousWithDriftDetection');
    assert.equal(spec(p).tier, 50);
    assert.deepEqual(spec(p).dependsOn, ['base']);
    assert.deepEqual(spec(p).patchesFrom, [{ kind: 'ConfigMap', name: 'p' }], 'Sveltos drops patchesFrom; Ripple passes it through');
    assert.equal(p.metadata.annotations?.[RippleAnnotations.oneForEvent], 'true');
  });

  test('a resource with the same namespace/name but another kind gets its own ClusterProfile', () => {
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'app', name: 'a' } };
    const r = render({ oneForEvent: true }, [], [svc('a'), dep]);
    assert.equal(new Set(r.events.map((e) => e.profile?.metadata.name)).size, 2);
  });

  test('destinationClusterSelector replaces clusterRefs; templated destinationCluster becomes the one clusterRef', () => {
    const sel = render({ oneForEvent: true, destinationClusterSelector: { matchLabels: { dep: 'eng' } } }, [], [svc('a')]);
    assert.deepEqual(spec(only(sel).profile).clusterSelector, { matchLabels: { dep: 'eng' } });
    assert.equal(spec(only(sel).profile).clusterRefs, undefined);
    const dest = render(
      { oneForEvent: true, destinationCluster: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'hub', name: '{{ .Resource.metadata.labels.tier }}-{{ .Cluster.metadata.name }}' } },
      [],
      [svc('a')],
    );
    assert.deepEqual(spec(only(dest).profile).clusterRefs, [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'hub', name: 'web-c1' }]);
  });

  test('helm charts, kustomizationRefs and templateResourceRefs are rendered field by field and passed through', () => {
    const r = render(
      {
        oneForEvent: true,
        helmCharts: [
          {
            repositoryURL: 'https://charts.example/{{ .Resource.metadata.name }}',
            repositoryName: 'ex',
            chartName: 'ex/{{ .Resource.metadata.name }}',
            chartVersion: '1.0.0',
            releaseName: 'r-{{ .Resource.metadata.name }}',
            releaseNamespace: '{{ .Resource.metadata.namespace }}',
            helmChartAction: 'Install',
            values: 'port: {{ (index .Resource.spec.ports 0).port }}\nclusterName: {{ .Resource.metadata.name | replace "-control-plane" "" }}',
          },
        ],
        kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux', name: 'repo', path: './k/{{ .Resource.metadata.name }}/', values: { region: '{{ .Cluster.metadata.labels.region }}' }, components: ['c-{{ .Resource.metadata.name }}'] }],
        templateResourceRefs: [{ identifier: 'x', resource: { apiVersion: 'v1', kind: 'Secret', namespace: '{{ .Resource.metadata.namespace }}', name: 'cred-{{ .Resource.metadata.name }}' } }],
      },
      [],
      [svc('a-control-plane')],
    );
    const s = spec(only(r).profile) as {
      helmCharts: { repositoryURL: string; chartName: string; releaseName: string; releaseNamespace: string; values: string; helmChartAction: string }[];
      kustomizationRefs: { path: string; values: Record<string, string>; components: string[] }[];
      templateResourceRefs: { resource: { namespace: string; name: string } }[];
    };
    assert.equal(s.helmCharts[0].repositoryURL, 'https://charts.example/a-control-plane');
    assert.equal(s.helmCharts[0].releaseName, 'r-a-control-plane');
    assert.equal(s.helmCharts[0].releaseNamespace, 'app');
    assert.equal(s.helmCharts[0].values, 'port: 443\nclusterName: a');
    assert.equal(s.helmCharts[0].helmChartAction, 'Install');
    assert.equal(s.kustomizationRefs[0].path, './k/a-control-plane/');
    assert.deepEqual(s.kustomizationRefs[0].values, { region: 'eu' });
    assert.deepEqual(s.kustomizationRefs[0].components, ['c-a-control-plane']);
    assert.deepEqual(s.templateResourceRefs[0].resource, { apiVersion: 'v1', kind: 'Secret', namespace: 'app', name: 'cred-a-control-plane' });
  });

  test('remoteURL policyRefs are rejected with what to do instead', () => {
    const r = render({ oneForEvent: true, policyRefs: [{ remoteURL: { url: 'https://x' } as never }] }, [], [svc('a')]);
    assert.match(issueOf(r), /UnsupportedReference: policyRefs\[0\]: remoteURL references are not supported/);
  });
});

describe('policyRefs', () => {
  const tmpl = { 'np.yaml': 'kind: NetworkPolicy\nmetadata:\n  name: front-{{ .Resource.metadata.name }}\n' };

  test('instantiate ConfigMaps are rendered into projectsveltos, annotations copied, labels + ref labels; Local first', () => {
    const src = cm('np', tmpl, { 'projectsveltos.io/instantiate': 'true', 'projectsveltos.io/template': 'true', 'kubectl.kubernetes.io/last-applied-configuration': '{}' });
    const plain = cm('plain', { 'a.yaml': 'kind: Namespace\nmetadata:\n  name: x\n' });
    const r = render(
      {
        oneForEvent: true,
        policyRefs: [
          { kind: 'ConfigMap', namespace: 'default', name: 'plain', deploymentType: 'Remote' },
          { kind: 'ConfigMap', namespace: 'default', name: 'np', deploymentType: 'Local', path: 'p/{{ .Resource.metadata.name }}' },
        ],
      },
      [src, plain],
      [svc('a')],
    );
    const e = only(r);
    assert.equal(e.issues.length, 0);
    const s = spec(e.profile) as { policyRefs: Record<string, unknown>[] };
    const made = e.objects[0];
    assert.deepEqual(s.policyRefs, [
      { kind: 'ConfigMap', namespace: 'projectsveltos', name: made.metadata.name, path: 'p/a', deploymentType: 'Local' },
      { kind: 'ConfigMap', namespace: 'default', name: 'plain', deploymentType: 'Remote' },
    ]);
    assert.equal(made.metadata.namespace, 'projectsveltos');
    assert.equal((made.data as Record<string, string>)['np.yaml'], 'kind: NetworkPolicy\nmetadata:\n  name: front-a\n');
    assert.equal(made.metadata.labels?.['eventtrigger.lib.projectsveltos.io/refname'], 'np');
    assert.equal(made.metadata.labels?.['eventtrigger.lib.projectsveltos.io/refnamespace'], 'default');
    assert.equal(made.metadata.annotations?.['projectsveltos.io/template'], 'true', 'both annotations: the deployer renders the copy again');
    assert.equal(made.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], undefined);
    assert.deepEqual([...r.deps].sort(), ['ConfigMap/default/np', 'ConfigMap/default/plain']);
  });

  test('legacy: no instantiate annotation but event data in the templates → instantiated, reported, template annotation dropped', () => {
    const src = cm('np', tmpl, { 'projectsveltos.io/template': 'ok' });
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'np' }] }, [src], [svc('a'), svc('b')]);
    assert.deepEqual(r.legacy, [{ kind: 'ConfigMap', namespace: 'default', name: 'np', fields: ['.Resource'] }], 'reported once, not per event');
    for (const e of r.events) {
      const made = e.objects[0];
      assert.equal(made.metadata.annotations?.['projectsveltos.io/template'], undefined);
      assert.equal(made.metadata.annotations?.[RippleAnnotations.legacyInstantiated], 'true');
    }
  });

  test('no annotation and no event data (a deploy-stage template, plain YAML) → referenced as is', () => {
    const src = cm('deploy', { 'x.yaml': 'name: {{ .Cluster.metadata.name }}' }, { 'projectsveltos.io/template': 'true' });
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', name: 'deploy', namespace: 'default' }] }, [src], [svc('a')]);
    assert.equal(only(r).objects.length, 0);
    assert.deepEqual((spec(only(r).profile) as { policyRefs: unknown[] }).policyRefs, [{ kind: 'ConfigMap', namespace: 'default', name: 'deploy', deploymentType: 'Remote' }]);
  });

  test('empty namespace means the source cluster namespace; namespace and name are templated', () => {
    const src = cm('cfg-a', { k: 'v' }, {}, 'ns1');
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', name: 'cfg-{{ .Resource.metadata.name }}' }] }, [src], [svc('a')]);
    assert.deepEqual((spec(only(r).profile) as { policyRefs: unknown[] }).policyRefs, [{ kind: 'ConfigMap', namespace: 'ns1', name: 'cfg-a', deploymentType: 'Remote' }]);
  });

  test('a missing ConfigMap fails the event unless optional', () => {
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'nope' }] }, [], [svc('a')]);
    assert.match(issueOf(r), /MissingReference: policyRefs\[0\]: ConfigMap default\/nope does not exist/);
    assert.deepEqual([...r.deps], ['ConfigMap/default/nope'], 'a missing reference is still a dependency (creating it re-renders)');
    const opt = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'nope', optional: true }] }, [], [svc('a')]);
    assert.equal(only(opt).issues.length, 0);
  });

  test('Secrets: values decoded, rendered, re-encoded, cluster-profile type; other Secret types are refused', () => {
    const s = secret('cred', { 'x.yaml': 'token: {{ .Resource.metadata.name }}' }, undefined, { 'projectsveltos.io/instantiate': 'true' });
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'Secret', namespace: 'default', name: 'cred' }] }, [s], [svc('a')]);
    const made = only(r).objects[0];
    assert.equal(made.type, 'addons.projectsveltos.io/cluster-profile');
    assert.equal(Buffer.from((made.data as Record<string, string>)['x.yaml'], 'base64').toString(), 'token: a');
    const opaque = render({ oneForEvent: true, policyRefs: [{ kind: 'Secret', namespace: 'default', name: 'cred' }] }, [secret('cred', { k: 'v' }, 'Opaque')], [svc('a')]);
    assert.match(issueOf(opaque), /InvalidSecretType: .*type "Opaque"; Secrets referenced by an EventTrigger must be of type addons.projectsveltos.io\/cluster-profile/);
  });

  test('template errors name the ConfigMap, the key, the template, line and column; invalid YAML after rendering is caught', () => {
    const bad = cm('bad', { 'a.yaml': 'x: 1\ny: {{ .Resource.metadata.nope }}' }, { 'projectsveltos.io/instantiate': 'true' });
    const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'bad' }] }, [bad], [svc('a')]);
    assert.match(issueOf(r), /^TemplateExec: policyRefs\[0\]: ConfigMap default\/bad data "a.yaml": template: trig:2:15: executing "trig" at <.Resource.metadata.nope>: map has no entry for key "nope"$/);
    const yaml = cm('y', { 'a.yaml': 'a: [{{ .Resource.metadata.name }}' }, { 'projectsveltos.io/instantiate': 'true' });
    const ry = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'y' }] }, [yaml], [svc('a')]);
    assert.match(issueOf(ry), /InvalidYAML: policyRefs\[0\]: ConfigMap default\/y data "a.yaml": invalid YAML after rendering at line \d+, column \d+/);
  });

  test('rendered content passes the YAML check exactly when the deployer can read it as YAML', () => {
    const ok = (data: Record<string, string>) => {
      const c = cm('c', data, { 'projectsveltos.io/instantiate': 'true' });
      const r = render({ oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'c' }] }, [c], [svc('a')]);
      return r.events.every((e) => e.issues.length === 0) ? 'ok' : issueOf(r);
    };
    // Repeated keys: yaml.v2 (and so the deployer) keeps the last; not an error.
    assert.equal(ok({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Resource.metadata.name }}\ndata:\n  k: "1"\n  k: "2"\n' }), 'ok');
    // YAML that is not Kubernetes objects (Helm values): the deployer says what is wrong with it, not this check.
    assert.equal(ok({ 'values.yaml': 'replicaCount: 2\nname: {{ .Resource.metadata.name }}\n' }), 'ok');
    assert.match(ok({ 'a.yaml': 'a: b: {{ .Resource.metadata.name }}\n' }), /InvalidYAML: .*invalid YAML after rendering at line 1, column \d+/);
  });

  test('helm valuesFrom with instantiate is rendered; a missing one is kept as is', () => {
    const v = cm('vals', { 'values.yaml': 'name: {{ .Resource.metadata.name }}' }, { 'projectsveltos.io/instantiate': 'true' });
    const r = render(
      {
        oneForEvent: true,
        helmCharts: [{ repositoryURL: 'https://x', repositoryName: 'x', chartName: 'x/x', chartVersion: '1', releaseName: 'x', releaseNamespace: 'x', valuesFrom: [{ kind: 'ConfigMap', name: 'vals', namespace: 'default' }, { kind: 'ConfigMap', name: 'absent' }] }],
      },
      [v],
      [svc('a')],
    );
    const e = only(r);
    const vf = (spec(e.profile) as { helmCharts: { valuesFrom: { namespace: string; name: string }[] }[] }).helmCharts[0].valuesFrom;
    assert.deepEqual(vf[0], { kind: 'ConfigMap', namespace: 'projectsveltos', name: e.objects[0].metadata.name });
    assert.deepEqual(vf[1], { kind: 'ConfigMap', namespace: 'ns1', name: 'absent' });
  });
});

describe('generators and CloudEvents', () => {
  test('configMapGenerator renders the source into <namespace>/<nameFormat> with the fromgenerator label', () => {
    const src = cm('gen', { token: '{{ .Cluster.metadata.name }}-{{ .Resource.metadata.name }}' });
    const r = render({ oneForEvent: true, configMapGenerator: [{ name: 'gen', namespace: 'default', nameFormat: '{{ .Cluster.metadata.name }}-{{ .Resource.metadata.name }}-token' }] }, [src], [svc('a')]);
    const made = only(r).objects[0];
    assert.equal(made.metadata.name, 'c1-a-token');
    assert.equal(made.metadata.labels?.['eventtrigger.lib.projectsveltos.io/fromgenerator'], 'ok');
    assert.deepEqual(made.data, { token: 'c1-a' });
  });

  test('a CloudEvent whose cloudEventAction renders Delete is a delete; anything but Create/Delete is an error', () => {
    const ce = { specversion: '1.0', id: '1', source: 'a/b', subject: 'svc', type: 'deleted' };
    const r = render({ oneForEvent: true, cloudEventAction: '{{ if eq .CloudEvent.type "deleted" }}Delete{{ else }}Create{{ end }}' }, [], [], { cloudEvents: [ce] });
    assert.equal(only(r).action, 'delete');
    const c = render({ oneForEvent: true, cloudEventAction: 'Create' }, [], [], { cloudEvents: [{ ...ce, type: 'created' }] });
    assert.equal(only(c).profile?.metadata.labels?.['eventtrigger.lib.projectsveltos.io/cesource'], 'a-b');
    const bad = render({ oneForEvent: true, cloudEventAction: 'Remove' }, [], [], { cloudEvents: [ce] });
    assert.match(issueOf(bad), /cloudEventAction rendered to "Remove": it must be Create or Delete/);
  });
});
