// The seed documents (Sveltos docs and blog posts that define the product — copies in testdata/seeds/): which of
// their YAML examples are inputs a user applies and which are output Sveltos produced, and the recovery of every
// example into objects. Demos and end-to-end tests reuse recoverSeedObjects() to apply exactly what the documents
// show.
import { parseAllDocuments } from 'yaml';
import { extractYamlBlocks, recoverYaml, type YamlBlock } from './doc-yaml.js';
import { isPlainObject } from './issues.js';
import { lookupKind } from './kinds.js';

/** SeedDocument is one seed file: its name (`003_cb1a105877a4915d.txt`) and text. */
export interface SeedDocument {
  name: string;
  text: string;
}

/** SeedRole says what a YAML document in a seed is: applied by the user, produced by Sveltos, or a snippet. */
export type SeedRole = 'input' | 'output' | 'fragment';

/** SeedBlockNote is the curated description of one YAML block of a seed document. */
export interface SeedBlockNote {
  /** Role of each YAML document of the block, in order. */
  roles: readonly SeedRole[];
  /** What the block is, in the document's terms. */
  what: string;
  /** Set when the block cannot be recovered: why, exactly (the test skips it by name with this reason). */
  unrecoverable?: string;
}

// Flattened seed 003 is the plain-text rendering of the page seed 004 is the Markdown source of (an older and a
// newer revision): its examples get their indentation back from 004's.
const REFERENCE_FOR: Record<string, string> = { '003': '004' };

/** SEED_BLOCKS describes every YAML block of every seed document, keyed `seed:index` (index as extractYamlBlocks numbers them). */
export const SEED_BLOCKS: Readonly<Record<string, SeedBlockNote>> = {
  '000:1': { roles: ['input'], what: 'Service svc-a in managed cluster cluster-a (the event source)' },
  '000:2': { roles: ['input'], what: 'EventSource loadbalancer-class-handler (Lua)' },
  '000:3': { roles: ['input', 'input', 'input'], what: 'EventTrigger (Local policyRefs) + instantiate ConfigMaps for the Service and the ClusterProfile' },
  '000:4': { roles: ['output', 'output', 'output'], what: 'generated ClusterProfile and instantiated ConfigMaps (example output)' },
  '000:5': {
    roles: ['output', 'output', 'input'],
    what: 'Service and ClusterProfile deployed on the management cluster (example output) + the status-patch ConfigMap (input, projectsveltos.io/template, misspelled subressources)',
  },
  '000:6': { roles: ['input', 'input', 'input', 'input', 'input'], what: 'full code: EventSource, EventTrigger and the three ConfigMaps' },
  '001:1': { roles: ['input'], what: 'v1alpha1 EventSource load-balancer-service (heredoc; metadata/spec lost one indentation level)' },
  '001:2': { roles: ['input', 'input'], what: 'v1alpha1 EventTrigger with string selectors (heredoc; spec lost one level) + template ConfigMap' },
  '001:3': { roles: ['input', 'input'], what: 'Deployment and LoadBalancer Service in the GKE cluster' },
  '001:4': { roles: ['output'], what: 'the Service with its load-balancer IP (example output, "..." elisions)' },
  '001:5': { roles: ['output'], what: 'selector-less Service deployed in the other cluster (example output)' },
  '001:6': { roles: ['output'], what: 'Endpoints deployed in the other cluster (example output)' },
  '001:7': { roles: ['input'], what: 'busybox Pod used to test the connection' },
  '002:1': { roles: ['input', 'input', 'input'], what: 'flat v1alpha1 EventSource (script), EventBasedAddOn (string selectors), ConfigMap — no --- between the first two' },
  '003:1': { roles: ['input'], what: 'flat EventSource with labelsFilters (flattened text)' },
  '003:2': { roles: ['input'], what: 'flat EventSource with a Lua script (flattened text)' },
  '003:3': {
    roles: ['input'],
    what: 'Kyverno ClusterPolicy adding tenant labels (flattened text)',
    unrecoverable:
      "seed 003 block 3: indentation lost in flattened text, and this revision of the Kyverno ClusterPolicy differs from seed 004 block 4 (rules[].exclude, match.all, serviceaccount labels), so there is no same example to restore it from; the nesting of '- cluster-admin' under 'any:' is ambiguous without Kyverno's schema. Not a Sveltos object.",
  },
  '003:4': { roles: ['input', 'input'], what: 'EventBasedAddOn (sourceClusterSelector string) + NetworkPolicy template ConfigMap (flattened text)' },
  '003:5': { roles: ['input'], what: 'Service my-service in the managed cluster (flattened text)' },
  '003:6': { roles: ['output'], what: 'NetworkPolicy created in the managed cluster (example output, flattened text)' },
  '003:7': { roles: ['output'], what: 'EventReport in the management cluster (example output, flattened text)' },
  '003:8': { roles: ['input'], what: 'EventBasedAddOn deploying the Kyverno Helm chart, oneForEvent false (flattened text)' },
  '003:9': { roles: ['input'], what: 'flat EventSource https-service (namespace eng, Lua) (flattened text)' },
  '003:10': { roles: ['input', 'input'], what: 'EventBasedAddOn ingress-configuration + Ingress template ConfigMap over .Resources (flattened text)' },
  '003:11': { roles: ['output'], what: 'Ingress created by Sveltos (example output, flattened text)' },
  '003:12': {
    roles: ['input', 'input', 'input'],
    what: 'flat EventSource eng-http-service, EventBasedAddOn ("..." elision) and HTTPRoute template ConfigMap (flattened text, no --- between the first two)',
  },
  '004:1': { roles: ['input'], what: 'flat EventSource with labelsFilters' },
  '004:2': { roles: ['input'], what: 'flat EventSource with a Lua script' },
  '004:3': { roles: ['fragment'], what: 'the projectsveltos.io/admin-name label (a snippet, not an object)' },
  '004:4': { roles: ['input'], what: 'Kyverno ClusterPolicy adding the admin-name label' },
  '004:5': { roles: ['input', 'input'], what: 'EventBasedAddOn (clusterSelector string) + NetworkPolicy template ConfigMap' },
  '004:6': { roles: ['input'], what: 'Service my-service in the managed cluster' },
  '004:7': { roles: ['output'], what: 'NetworkPolicy created in the managed cluster (example output)' },
  '004:8': { roles: ['output'], what: 'EventReport in the management cluster (example output; body indented under apiVersion)' },
  '004:9': { roles: ['input'], what: 'EventBasedAddOn deploying the Kyverno Helm chart, oneForEvent false' },
  '004:10': { roles: ['input'], what: 'flat EventSource https-service (namespace eng, Lua)' },
  '004:11': { roles: ['input', 'input'], what: 'EventBasedAddOn ingress-configuration + Ingress template ConfigMap over .Resources' },
  '004:12': { roles: ['output'], what: 'Ingress created by Sveltos (example output)' },
  '004:13': { roles: ['input'], what: 'flat EventSource eng-http-service' },
  '004:14': { roles: ['input', 'input'], what: 'EventBasedAddOn with a "..." elision in policyRefs + HTTPRoute template ConfigMap' },
};

// Fields a Kubernetes object of a kind Ripple does not know may have at the top level (core/apps/networking/…).
const GENERIC_TOP_LEVEL = ['apiVersion', 'kind', 'metadata', 'spec', 'status', 'data', 'stringData', 'binaryData', 'type', 'immutable', 'subsets', 'rules', 'roleRef', 'subjects', 'webhooks', 'items'];

function topLevelFields(apiVersion: string | undefined, kind: string | undefined): readonly string[] {
  if (apiVersion && kind) {
    const l = lookupKind(apiVersion, kind);
    if (l.status === 'served' || l.status === 'unknownVersion') {
      return Object.keys(l.descriptor.versions[0].schema.properties ?? {});
    }
  }
  return GENERIC_TOP_LEVEL;
}

/** RecoveredBlock is one YAML block of a seed with its recovery outcome. */
export interface RecoveredBlock {
  seed: string;
  document: string;
  block: YamlBlock;
  note: SeedBlockNote | undefined;
  /** Recovered YAML text and the repairs made, or why it is unrecoverable. */
  recovery: ReturnType<typeof recoverYaml>;
}

/** SeedObject is one object recovered from a seed document. */
export interface SeedObject {
  /** Seed number (`000`…`004`). */
  seed: string;
  /** 1-based YAML block index within the seed. */
  index: number;
  /** 0-based document index within the block. */
  doc: number;
  role: SeedRole;
  object: Record<string, unknown>;
}

const seedId = (name: string) => name.slice(0, 3);

/**
 * recoverSeedBlocks extracts and recovers every YAML block of the seed documents. Seeds whose indentation was
 * flattened are recovered against the seed holding the same page in Markdown (REFERENCE_FOR).
 */
export function recoverSeedBlocks(docs: readonly SeedDocument[]): RecoveredBlock[] {
  const byId = new Map(docs.map((d) => [seedId(d.name), d]));
  const recoveredTexts = new Map<string, string[]>();
  const recoverDoc = (d: SeedDocument): RecoveredBlock[] => {
    const id = seedId(d.name);
    const refId = REFERENCE_FOR[id];
    let reference: string[] | undefined;
    const referenceName = refId ? `seed ${refId}` : undefined;
    if (refId) {
      const refDoc = byId.get(refId);
      if (refDoc && !recoveredTexts.has(refId)) recoverDoc(refDoc);
      reference = recoveredTexts.get(refId);
    }
    const blocks = extractYamlBlocks(d.text).map((block) => ({
      seed: id,
      document: d.name,
      block,
      note: SEED_BLOCKS[`${id}:${block.index}`],
      recovery: recoverYaml(block.raw, { topLevelFields, reference, referenceName }),
    }));
    recoveredTexts.set(id, blocks.flatMap((b) => (b.recovery.ok ? [b.recovery.text] : [])));
    return blocks;
  };
  return [...docs].sort((a, b) => a.name.localeCompare(b.name)).flatMap(recoverDoc);
}

/**
 * recoverSeedObjects returns every object of every recoverable seed block with its role (input/output/fragment),
 * in document order. Blocks marked unrecoverable in SEED_BLOCKS are left out (the seed test names them).
 */
export function recoverSeedObjects(docs: readonly SeedDocument[]): SeedObject[] {
  const out: SeedObject[] = [];
  for (const b of recoverSeedBlocks(docs)) {
    if (!b.recovery.ok) continue;
    const values = parseAllDocuments(b.recovery.text)
      .map((d) => d.toJS() as unknown)
      .filter((v) => v !== null && v !== undefined);
    values.forEach((v, i) => {
      if (isPlainObject(v)) out.push({ seed: b.seed, index: b.block.index, doc: i, role: b.note?.roles[i] ?? 'input', object: v });
    });
  }
  return out;
}
