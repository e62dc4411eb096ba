// manifests: prints the Kubernetes manifests Ripple installs. `manifests crds` prints the CustomResourceDefinitions
// of every kind Ripple serves, generated from src/api's schemas.
import { KINDS, crdsToYaml, fluxSourceCrds, generateCrds } from '../../api/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command } from '../command.js';

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
];
