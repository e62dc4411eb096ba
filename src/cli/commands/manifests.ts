// manifests: prints the Kubernetes manifests Ripple installs. `manifests crds` prints the CustomResourceDefinitions
// of every kind Ripple serves, generated from src/api's schemas.
import { KINDS, crdsToYaml, generateCrds } from '../../api/index.js';
import { stringify } from 'yaml';
import { tenancyPolicy } from '../../tenancy/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command } from '../command.js';

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

const usage = `Usage: ripple manifests crds [--output yaml|json] [--kind KIND]...

Prints the CustomResourceDefinitions Ripple serves, generated from its API schemas: the Sveltos v1beta1 kinds
(EventSource, EventReport, EventTrigger, ClusterProfile, Profile, ClusterSummary, ClusterReport, SveltosCluster,
ClusterSet, Set, ResourceSummary), the deprecated v1alpha1 versions Sveltos' older documents use (served, not
stored, conversion None) and the EventBasedAddOn CRD. Ripple reads old shapes and converts them.

Flags:
  -o, --output FORMAT   yaml (default: multi-document, ready for kubectl apply -f -) or json (a List)
  -k, --kind KIND       only this kind (repeatable), e.g. --kind EventTrigger

Examples:
  ripple manifests crds | kubectl apply --server-side -f -
  ripple manifests crds --kind EventSource --kind EventTrigger
`;

export const commands: Command[] = [
  {
    path: ['manifests', 'crds'],
    summary: 'Print the CustomResourceDefinitions Ripple serves (YAML or JSON)',
    usage,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        output: { type: 'string', short: 'o', default: 'yaml' },
        kind: { type: 'string', short: 'k', multiple: true },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      const output = oneOf('--output', values.output ?? 'yaml', ['yaml', 'json']);
      const wanted = values.kind ?? [];
      const unknown = wanted.filter((k) => !KINDS.some((d) => d.kind === k));
      if (unknown.length > 0) {
        throw new UsageError(`unknown kind "${unknown[0]}"; kinds: ${KINDS.map((d) => d.kind).join(', ')}`);
      }
      const crds = generateCrds(wanted.length > 0 ? KINDS.filter((d) => wanted.includes(d.kind)) : KINDS);
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
