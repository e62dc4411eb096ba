// agent: watch-driven EventSource detection in managed clusters and EventReport delivery to the management cluster
// (agentless in-process agents, in-cluster agents pushing reports, and a management-side collector). See README.md.
export {
  EVENT_REPORT,
  EVALUATION_FAILURE_ANNOTATION,
  MANAGED_FAILURE_FIELD,
  ResourceDecodeError,
  buildManagedReport,
  buildManagementReport,
  contentFromManagedReport,
  contentHash,
  decodeEventReportResources,
  encodeEventReportResources,
  encodeResourceDocument,
  managementReportLabels,
  managementReportName,
  objectReferenceOf,
  splitEventReportResources,
  type ClusterIdentity,
  type ReportContent,
  type ReportObject,
} from './report.js';
export { goJSONMarshal } from './go-json.js';
