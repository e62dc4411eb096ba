// The tenant-label decision lives in src/api (pure; tenant-labels.ts) so that the embedded API server's admission
// can use it without loading this component's controllers (and the Kubernetes client they bring). Re-exported here.
export { TENANT_KINDS, TENANT_RESOURCES, tenantLabelDecision, type LabelDecision } from '../api/index.js';
