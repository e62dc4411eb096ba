// Extension-point built-ins: admissionregistration.k8s.io webhook configurations and ValidatingAdmissionPolicies,
// certificates.k8s.io CertificateSigningRequests, apiregistration.k8s.io APIServices.
// Go: pkg/apis/admissionregistration/validation, pkg/apis/certificates/validation,
// k8s.io/kube-aggregator/pkg/apis/apiregistration/validation, pkg/printers
import { OMIT_VALUE, type FieldError } from '../schema/index.js';
import { ageColumn, asArray, asRecord, column, nameColumn } from '../printers.js';
import type { KubeObject } from '../types.js';
import { isDNS1123Subdomain } from '../validation.js';
import { invalid, notSupported, oneOf, required } from './checks.js';
import { approvalAction } from './actions.js';
import { defineBuiltin } from './define.js';

const API_EXTENSIONS = ['api-extensions'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

function validateClientConfig(errs: FieldError[], path: string, cc: Record<string, unknown>): void {
  const url = cc.url;
  const svc = asRecord(cc.service);
  const hasService = cc.service !== undefined && cc.service !== null;
  if ((url === undefined || url === '') === !hasService) {
    errs.push(required(path, 'exactly one of url or service is required'));
    return;
  }
  if (typeof url === 'string' && url !== '') {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e;
      errs.push(invalid(`${path}.url`, url, 'host must be specified'));
    }
    if (u && u.protocol !== 'https:') errs.push(invalid(`${path}.url`, url, "'https' is the only allowed URL scheme"));
    if (u && (u.username || u.password)) errs.push(invalid(`${path}.url`, url, "user information is not permitted in the URL"));
    if (u && (u.hash || u.search)) errs.push(invalid(`${path}.url`, url, 'fragments and query parameters are not permitted in the URL'));
  }
  if (hasService) {
    if (!svc.namespace) errs.push(required(`${path}.service.namespace`, 'service namespace is required'));
    if (!svc.name) errs.push(required(`${path}.service.name`, 'service name is required'));
    const port = svc.port;
    if (typeof port === 'number' && (port < 1 || port > 65535)) errs.push(invalid(`${path}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
    if (typeof svc.path === 'string' && svc.path !== '' && !svc.path.startsWith('/')) errs.push(invalid(`${path}.service.path`, svc.path, "must start with a '/'"));
  }
}

function validateRules(errs: FieldError[], path: string, rules: unknown): void {
  asArray(rules).forEach((r, i) => {
    const rule = asRecord(r);
    const p = `${path}[${i}]`;
    if (asArray(rule.operations).length === 0) errs.push(required(`${p}.operations`));
    for (const op of asArray(rule.operations)) if (!OPERATIONS.includes(String(op))) errs.push(notSupported(`${p}.operations`, op, OPERATIONS));
    if (asArray(rule.apiGroups).length === 0) errs.push(required(`${p}.apiGroups`));
    if (asArray(rule.apiVersions).length === 0) errs.push(required(`${p}.apiVersions`));
    if (asArray(rule.resources).length === 0) errs.push(required(`${p}.resources`));
    oneOf(errs, `${p}.scope`, rule.scope, ['*', 'Cluster', 'Namespaced']);
  });
}

// Go: validateValidatingWebhook / validateMutatingWebhook (webhook names: at least three DNS segments).
function validateWebhooks(obj: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  asArray(obj.webhooks).forEach((w, i) => {
    const hook = asRecord(w);
    const p = `webhooks[${i}]`;
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name === '') errs.push(required(`${p}.name`));
    else {
      for (const m of isDNS1123Subdomain(name)) errs.push(invalid(`${p}.name`, name, m));
      if (name.split('.').length < 3) errs.push(invalid(`${p}.name`, name, 'should be a domain with at least three segments separated by dots'));
      if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.name`, badValue: name, detail: '' });
      seen.add(name);
    }
    validateRules(errs, `${p}.rules`, hook.rules);
    oneOf(errs, `${p}.failurePolicy`, hook.failurePolicy, ['Fail', 'Ignore']);
    oneOf(errs, `${p}.matchPolicy`, hook.matchPolicy, ['Equivalent', 'Exact']);
    if (hook.sideEffects === undefined || hook.sideEffects === null) errs.push(required(`${p}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
    else oneOf(errs, `${p}.sideEffects`, hook.sideEffects, SIDE_EFFECTS);
    if (typeof hook.timeoutSeconds === 'number' && (hook.timeoutSeconds < 1 || hook.timeoutSeconds > 30)) {
      errs.push(invalid(`${p}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
    }
    const versions = asArray(hook.admissionReviewVersions);
    if (versions.length === 0) errs.push(required(`${p}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) errs.push(invalid(`${p}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
    if (mutating) oneOf(errs, `${p}.reinvocationPolicy`, hook.reinvocationPolicy, ['IfNeeded', 'Never']);
    validateClientConfig(errs, `${p}.clientConfig`, asRecord(hook.clientConfig));
  });
  return errs;
}

const webhookColumns = [nameColumn, column('Webhooks', 'integer', (o: KubeObject) => asArray(o.webhooks).length, { description: 'Webhooks indicates the number of webhooks registered in this configuration' }), ageColumn];

/** validatingWebhookDescriptor: admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration. */
export const validatingWebhookDescriptor = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  plural: 'validatingwebhookconfigurations',
  namespaced: false,
  categories: API_EXTENSIONS,
  goDefaults: true,
  columns: webhookColumns,
  hooks: { validate: (o) => validateWebhooks(o, false), validateUpdate: (o) => validateWebhooks(o, false) },
});

/** mutatingWebhookDescriptor: admissionregistration.k8s.io/v1 MutatingWebhookConfiguration. */
export const mutatingWebhookDescriptor = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  namespaced: false,
  categories: API_EXTENSIONS,
  goDefaults: true,
  columns: webhookColumns,
  hooks: { validate: (o) => validateWebhooks(o, true), validateUpdate: (o) => validateWebhooks(o, true) },
});

// Go: validateValidatingAdmissionPolicySpec (shape only; CEL expressions are not compiled here).
function validatePolicy(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (asArray(spec.validations).length === 0 && asArray(spec.auditAnnotations).length === 0) {
    errs.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  }
  asArray(spec.validations).forEach((v, i) => {
    if (!asRecord(v).expression) errs.push(required(`spec.validations[${i}].expression`));
  });
  oneOf(errs, 'spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']);
  if (spec.matchConstraints === undefined) errs.push(required('spec.matchConstraints'));
  else validateRules(errs, 'spec.matchConstraints.resourceRules', asRecord(spec.matchConstraints).resourceRules);
  return errs;
}

/** validatingAdmissionPolicyDescriptor: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy with status. */
export const validatingAdmissionPolicyDescriptor = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  plural: 'validatingadmissionpolicies',
  namespaced: false,
  categories: API_EXTENSIONS,
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Validations', 'integer', (o) => asArray(asRecord(o.spec).validations).length),
    column('ParamKind', 'string', (o) => {
      const pk = asRecord(asRecord(o.spec).paramKind);
      return pk.kind ? `${pk.apiVersion}/${pk.kind}` : '<unset>';
    }),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validatePolicy,
    validateUpdate: validatePolicy,
  },
});

const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];

function validateBinding(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (!spec.policyName) errs.push(required('spec.policyName'));
  const actions = asArray(spec.validationActions);
  if (actions.length === 0) errs.push(required('spec.validationActions', 'at least one validation action is required'));
  for (const a of actions) oneOf(errs, 'spec.validationActions', a, VALIDATION_ACTIONS);
  if (actions.includes('Deny') && actions.includes('Warn')) errs.push(invalid('spec.validationActions', actions, 'cannot use both Deny and Warn'));
  return errs;
}

/** validatingAdmissionPolicyBindingDescriptor: admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding. */
export const validatingAdmissionPolicyBindingDescriptor = defineBuiltin({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  plural: 'validatingadmissionpolicybindings',
  namespaced: false,
  categories: API_EXTENSIONS,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('PolicyName', 'string', (o) => String(asRecord(o.spec).policyName ?? '')),
    column('ParamRef', 'string', (o) => {
      const ref = asRecord(asRecord(o.spec).paramRef);
      if (!ref.name && !ref.selector) return '<unset>';
      return ref.namespace ? `${ref.namespace}/${ref.name ?? '*'}` : `*/${ref.name ?? '*'}`;
    }),
    ageColumn,
  ],
  hooks: { validate: validateBinding, validateUpdate: validateBinding },
});

// ---------------------------------------------------------------- CertificateSigningRequest

// Go: printCertificateSigningRequest's condition summary ("Approved,Issued", "Pending").
function csrCondition(o: KubeObject): string {
  const st = asRecord(o.status);
  const types = asArray(st.conditions).map((c) => String(asRecord(c).type));
  const out: string[] = [];
  if (types.includes('Approved')) out.push('Approved');
  if (types.includes('Denied')) out.push('Denied');
  if (types.includes('Failed')) out.push('Failed');
  if (st.certificate && out.length > 0) out.push('Issued');
  return out.length > 0 ? out.join(',') : 'Pending';
}

function validateCSR(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (!spec.request) errs.push(required('spec.request'));
  else {
    const pem = Buffer.from(String(spec.request), 'base64').toString('latin1');
    if (!pem.includes('-----BEGIN CERTIFICATE REQUEST-----')) errs.push(invalid('spec.request', OMIT_VALUE, 'PEM block type must be CERTIFICATE REQUEST'));
  }
  if (!spec.signerName) errs.push(required('spec.signerName'));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  if (asArray(spec.usages).length === 0) errs.push(required('spec.usages'));
  return errs;
}

/** csrDescriptor: certificates.k8s.io/v1 CertificateSigningRequest with status (approval through status updates). */
export const csrDescriptor = defineBuiltin({
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
  shortNames: ['csr'],
  status: true,
  actions: [approvalAction],
  fieldNames: ['spec.signerName'],
  columns: [
    nameColumn,
    ageColumn,
    column('SignerName', 'string', (o) => String(asRecord(o.spec).signerName ?? '')),
    column('Requestor', 'string', (o) => String(asRecord(o.spec).username ?? '')),
    column('RequestedDuration', 'string', (o) => {
      const s = asRecord(o.spec).expirationSeconds;
      return typeof s === 'number' ? goDuration(s) : '<none>';
    }),
    column('Condition', 'string', csrCondition),
  ],
  hooks: {
    prepareForCreate(obj, ctx) {
      // Go: csrStrategy.PrepareForCreate — the requester's identity comes from the request's user.
      obj.status = {};
      obj.spec = { ...asRecord(obj.spec), username: `ripple:${ctx.cluster.name}:admin`, groups: ['system:masters', 'system:authenticated'] };
    },
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      obj.status = old.status;
    },
    validate: validateCSR,
    validateUpdate: () => [],
    fields: (o) => ({ 'spec.signerName': String(asRecord(o.spec).signerName ?? '') }),
  },
});

// Go's time.Duration String for whole seconds ("1h0m0s"); kubectl shows it through duration.HumanDuration.
function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return m === 0 && s === 0 ? `${h}h` : `${h}h${m}m`;
  if (m > 0) return s === 0 ? `${m}m` : `${m}m${s}s`;
  return `${s}s`;
}

// ---------------------------------------------------------------- APIService

// Go: kube-aggregator ValidateAPIService
function validateAPIService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  const name = obj.metadata?.name ?? '';
  const want = `${spec.version}.${spec.group}`;
  if (name !== want && !(spec.group === '' && name === spec.version)) errs.push(invalid('metadata.name', name, `must be ${want}`));
  if (!spec.version) errs.push(required('spec.version'));
  const gpm = spec.groupPriorityMinimum;
  if (typeof gpm !== 'number' || gpm <= 0 || gpm > 20000) errs.push(invalid('spec.groupPriorityMinimum', gpm ?? 0, 'must be positive and less than 20000'));
  const vp = spec.versionPriority;
  if (typeof vp !== 'number' || vp <= 0 || vp > 1000) errs.push(invalid('spec.versionPriority', vp ?? 0, 'must be positive and less than 1000'));
  if (!spec.service && spec.caBundle) errs.push(invalid('spec.caBundle', '<bytes>', 'local APIServices may not have a caBundle'));
  return errs;
}

/** apiServiceDescriptor: apiregistration.k8s.io/v1 APIService (registered only; nothing is proxied). */
export const apiServiceDescriptor = defineBuiltin({
  group: 'apiregistration.k8s.io',
  version: 'v1',
  kind: 'APIService',
  plural: 'apiservices',
  namespaced: false,
  categories: API_EXTENSIONS,
  status: true,
  nameRule: 'dns1123Subdomain',
  columns: [
    nameColumn,
    column('Service', 'string', (o) => {
      const svc = asRecord(asRecord(o.spec).service);
      return svc.name ? `${svc.namespace}/${svc.name}` : 'Local';
    }),
    column('Available', 'string', (o) => {
      const c = asArray(asRecord(o.status).conditions).map(asRecord).find((x) => x.type === 'Available');
      if (!c) return 'Unknown';
      return c.status === 'True' ? 'True' : `${c.status} (${c.reason})`;
    }),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validateAPIService,
    validateUpdate: validateAPIService,
  },
});
