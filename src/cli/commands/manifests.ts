// manifests: prints the Kubernetes manifests Ripple installs. `manifests crds` prints the CustomResourceDefinitions
// of every kind Ripple serves, generated from src/api's schemas (`--flux` adds Flux's source CRDs); `manifests all`
// prints everything Ripple's Helm chart (deploy/helm/ripple) installs, rendered by Ripple's own Helm engine — no helm
// binary needed; `manifests tenancy` prints the admission policy that keeps tenants from forging tenant labels.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KINDS, crdsToYaml, fluxSourceCrds, generateCrds } from '../../api/index.js';
import { stringify } from 'yaml';
import { tenancyPolicy } from '../../tenancy/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command } from '../command.js';
import { runHelmTemplate } from './helm.js';

/** CHART_DIR is Ripple's own chart: deploy/helm/ripple above this module (in src/cli/commands/ or a dist/ chunk). */
export const CHART_DIR = (() => {
  for (let dir = import.meta.dirname; ; ) {
    const candidate = join(dir, 'deploy', 'helm', 'ripple');
    if (existsSync(join(candidate, 'Chart.yaml'))) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(import.meta.dirname, '..', '..', '..', 'deploy', 'helm', 'ripple');
    dir = up;
  }
})();

const allUsage = `Usage: ripple manifests all [--namespace NS] [--release-name NAME] [-f FILE]... [--set K=V]... [--no-crds]

Prints every object that installs Ripple into a management cluster — its CRDs, ServiceAccount, least-privilege RBAC,
the manager Deployment (leader election), metrics Service, NetworkPolicy and PodDisruptionBudget — exactly as
\`helm template RELEASE deploy/helm/ripple --include-crds\` prints them, without Helm. Values files and --set take
the chart's values (see deploy/helm/ripple/values.yaml and values.schema.json).

Flags:
  -n, --namespace NS       namespace to install into (default projectsveltos; create it first)
      --release-name NAME  release name, prefix of the object names (default ripple)
  -f, --values FILE        a values file for the chart (repeatable; later files win)
      --set K=V            set one chart value (repeatable), e.g. --set manager.agentMode=collect
      --no-crds            leave the CustomResourceDefinitions out

Examples:
  kubectl create namespace projectsveltos
  ripple manifests all | kubectl apply --server-side -f -
  ripple manifests all --set manager.replicas=3 --set metrics.serviceMonitor.enabled=true
`;

const tenancyUsage = `Usage: ripple manifests tenancy [--output yaml|json]

Prints the ValidatingAdmissionPolicy (+ binding) that keeps tenants from forging the Sveltos tenant labels on a real
management cluster (Kubernetes >= 1.30, no Kyverno needed): a ServiceAccount outside projectsveltos creating or
updating an EventSource, EventTrigger, EventBasedAddOn, ClusterProfile or Profile must label it
projectsveltos.io/serviceaccount-name=<its name> and projectsveltos.io/serviceaccount-namespace=<its namespace>,
and projectsveltos.io/admin-name / admin-namespace, if set, must name it too. The embedded API server of ripple up
stamps these labels itself; a policy cannot (use the seed's Kyverno ClusterPolicy to stamp them, see docs/tenancy.md).

Flags:
  -o, --output FORMAT   yaml (default) or json (a List)

Examples:
  ripple manifests tenancy | kubectl apply -f -
`;

const usage = `Usage: ripple manifests crds [--output yaml|json] [--kind KIND]... [--flux]

Prints the CustomResourceDefinitions Ripple serves, generated from its API schemas: the Sveltos v1beta1 kinds
(EventSource, EventReport, EventTrigger, ClusterProfile, Profile, ClusterSummary, ClusterReport, SveltosCluster,
ClusterSet, Set, ResourceSummary), the deprecated v1alpha1 versions Sveltos' older documents use (served, not
stored, conversion None) and the EventBasedAddOn CRD. Ripple reads old shapes and converts them.

Flags:
  -o, --output FORMAT   yaml (default: multi-document, ready for kubectl apply -f -) or json (a List)
  -k, --kind KIND       only this kind (repeatable), e.g. --kind EventTrigger
      --flux            also Flux source-controller's GitRepository (v1), OCIRepository and Bucket (v1beta2), for
                        a management cluster without Flux whose kustomizationRefs/policyRefs name Flux sources
                        (do not apply them over a Flux installation's own CRDs)

Examples:
  ripple manifests crds | kubectl apply --server-side -f -
  ripple manifests crds --kind EventSource --kind EventTrigger
  ripple manifests crds --flux --kind GitRepository
`;

export const commands: Command[] = [
  {
    path: ['manifests', 'all'],
    summary: 'Print everything that installs Ripple in a cluster (its Helm chart rendered with default values, CRDs included)',
    usage: allUsage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        namespace: { type: 'string', short: 'n', default: 'projectsveltos' },
        'release-name': { type: 'string', default: 'ripple' },
        values: { type: 'string', short: 'f', multiple: true },
        set: { type: 'string', multiple: true },
        'no-crds': { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      if (!existsSync(join(CHART_DIR, 'Chart.yaml'))) {
        io.stderr.write(`ripple manifests all: Ripple's chart is not at ${CHART_DIR}; run from a complete installation (the chart ships in deploy/helm/ripple)\n`);
        return ExitCode.BadInput;
      }
      const helmArgs = [values['release-name'] ?? 'ripple', CHART_DIR, '--namespace', values.namespace ?? 'projectsveltos'];
      for (const f of values.values ?? []) helmArgs.push('--values', f);
      for (const s of values.set ?? []) helmArgs.push('--set', s);
      if (!values['no-crds']) helmArgs.push('--include-crds');
      const r = runHelmTemplate(helmArgs);
      io.stdout.write(r.stdout);
      io.stderr.write(r.stderr);
      return r.code === 0 ? ExitCode.Ok : ExitCode.BadInput;
    },
  },
  {
    path: ['manifests', 'crds'],
    summary: 'Print the CustomResourceDefinitions Ripple serves (YAML or JSON)',
    usage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        output: { type: 'string', short: 'o', default: 'yaml' },
        kind: { type: 'string', short: 'k', multiple: true },
        flux: { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      const output = oneOf('--output', values.output ?? 'yaml', ['yaml', 'json']);
      const wanted = values.kind ?? [];
      const flux = values.flux ? fluxSourceCrds() : [];
      const unknown = wanted.filter((k) => !KINDS.some((d) => d.kind === k) && !flux.some((c) => c.spec.names.kind === k));
      if (unknown.length > 0) {
        const kinds = [...KINDS.map((d) => d.kind), ...flux.map((c) => c.spec.names.kind)];
        throw new UsageError(`unknown kind "${unknown[0]}"; kinds: ${kinds.join(', ')}${values.flux ? '' : ' (Flux source kinds with --flux)'}`);
      }
      const crds = [
        ...(wanted.length === 0 || KINDS.some((d) => wanted.includes(d.kind)) ? generateCrds(wanted.length > 0 ? KINDS.filter((d) => wanted.includes(d.kind)) : KINDS) : []),
        ...flux.filter((c) => wanted.length === 0 || wanted.includes(c.spec.names.kind)),
      ];
      if (output === 'json') {
        io.stdout.write(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds }, null, 2) + '\n');
      } else {
        io.stdout.write(crdsToYaml(crds));
      }
      return ExitCode.Ok;
    },
  },
  {
    path: ['manifests', 'tenancy'],
    summary: 'Print the ValidatingAdmissionPolicy that stops tenants forging the tenant labels (real clusters)',
    usage: tenancyUsage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, { output: { type: 'string', short: 'o', default: 'yaml' } });
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      const output = oneOf('--output', values.output ?? 'yaml', ['yaml', 'json']);
      const objs = tenancyPolicy();
      if (output === 'json') io.stdout.write(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs }, null, 2) + '\n');
      else io.stdout.write(objs.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
      return ExitCode.Ok;
    },
  },
];
