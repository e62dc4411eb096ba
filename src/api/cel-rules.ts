// TypeScript equivalents of the CEL `x-kubernetes-validations` rules our schemas carry. The CRDs ship the CEL text
// (a real kube-apiserver evaluates it); Ripple's own validator looks the rule text up here. A test checks that every
// rule in every schema has an entry, so a new rule cannot be silently ignored.
import type { IssueCode } from './issues.js';
import { isPlainObject } from './issues.js';

/** CelRuleImpl evaluates one CEL rule against `self` (and `oldSelf` for transition rules). */
export interface CelRuleImpl {
  /** The issue code reported when the rule is false. */
  code: IssueCode;
  /** Transition rules (using oldSelf) run only on updates. */
  transition: boolean;
  /** Returns false when the rule is violated. */
  check(self: unknown, oldSelf?: unknown): boolean;
  /** Optional: the child field the failure is about (reported as the issue path under the node). */
  field?: string;
}

// CEL `has(self.f)`: the field is present (a null value is pruned by the API server before CEL runs).
const has = (self: unknown, f: string) => isPlainObject(self) && self[f] !== undefined && self[f] !== null;
const strField = (self: unknown, f: string) => (isPlainObject(self) && typeof self[f] === 'string' ? (self[f] as string) : '');

function helmRequires(field: string, prefix: string): CelRuleImpl {
  return {
    code: 'required',
    transition: false,
    field,
    // Go CEL would fail with "no such key" when the field is absent; the apiserver then reports the rule's
    // message, which is what we do by treating absent as "".
    check: (self) => !strField(self, 'repositoryURL').startsWith(prefix) || strField(self, field).length >= 1,
  };
}

function providerRule(provider: string, field: string): CelRuleImpl {
  return {
    code: 'conflict',
    transition: false,
    field,
    check: (self) => (strField(self, 'provider') === provider) === has(self, field),
  };
}

/** CEL_RULES maps the exact CEL text of each x-kubernetes-validations rule to its TypeScript implementation. */
export const CEL_RULES: Readonly<Record<string, CelRuleImpl>> = {
  'has(self.remoteURL) != has(self.kind)': {
    code: 'conflict',
    transition: false,
    check: (self) => has(self, 'remoteURL') !== has(self, 'kind'),
  },
  "self.repositoryURL.startsWith('http') ? size(self.chartName) >= 1 : true": helmRequires('chartName', 'http'),
  "self.repositoryURL.startsWith('oci') ? size(self.chartName) >= 1 : true": helmRequires('chartName', 'oci'),
  "self.repositoryURL.startsWith('http') ? size(self.chartVersion) >= 1 : true": helmRequires('chartVersion', 'http'),
  "self.repositoryURL.startsWith('oci') ? size(self.chartVersion) >= 1 : true": helmRequires('chartVersion', 'oci'),
  "self.repositoryURL.startsWith('http') ? size(self.repositoryName) >= 1 : true": helmRequires('repositoryName', 'http'),
  "self.repositoryURL.startsWith('oci') ? size(self.repositoryName) >= 1 : true": helmRequires('repositoryName', 'oci'),
  '!has(self.jobCheck) || (!has(self.script) && !has(self.evaluateCEL))': {
    code: 'conflict',
    transition: false,
    check: (self) => !has(self, 'jobCheck') || (!has(self, 'script') && !has(self, 'evaluateCEL')),
  },
  "(self.provider == 'AWS') == has(self.aws)": providerRule('AWS', 'aws'),
  "(self.provider == 'GCP') == has(self.gcp)": providerRule('GCP', 'gcp'),
  "(self.provider == 'Azure') == has(self.azure)": providerRule('Azure', 'azure'),
  '!has(self.workloadIdentity) || !has(self.kubeconfigName)': {
    code: 'conflict',
    transition: false,
    check: (self) => !has(self, 'workloadIdentity') || !has(self, 'kubeconfigName'),
  },
  'self == oldSelf': {
    code: 'immutable',
    transition: true,
    check: (self, oldSelf) => JSON.stringify(self) === JSON.stringify(oldSelf),
  },
};
